"""Launch settings the CuPy backend computes on the host (no GPU needed)."""

from __future__ import annotations

import pytest

from grblas_gpu.backends.cupy.codegen import carveout_percent

H100_SHARED, RESERVED = 233_472, 1024  # an H100 SM's shared memory, and what the driver keeps per block


@pytest.mark.parametrize("block_bytes, blocks", [(10_820, 6), (13_892, 6), (17_960, 6), (1, 1), (48_000, 4)])
def test_carveout_is_the_least_that_holds_the_blocks(block_bytes: int, blocks: int) -> None:
    """The percentage holds the blocks, and one percent less would not."""
    need = blocks * (block_bytes + RESERVED)
    percent = carveout_percent(block_bytes, blocks, H100_SHARED, RESERVED)
    assert percent * H100_SHARED >= 100 * need
    assert (percent - 1) * H100_SHARED < 100 * need


def test_carveout_bounds() -> None:
    """Never 0 (that asks for no shared memory) nor over 100."""
    assert carveout_percent(0, 6, H100_SHARED, 0) == 1
    assert carveout_percent(100_000, 6, H100_SHARED, RESERVED) == 100


def test_carveout_of_the_merge_kernel_on_an_h100() -> None:
    """The merge kernel's 6 blocks of 10,820 bytes (FP32, 16-bit row ends) ask for 31%: the
    driver rounds that up to its 100 KB size, leaving 156 KB of the SM's 256 KB to L1."""
    assert carveout_percent(10_820, 6, H100_SHARED, RESERVED) == 31
