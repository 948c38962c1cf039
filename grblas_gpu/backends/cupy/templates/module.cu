// ---- {{TITLE}}
namespace {{NS}} {
{{OPS}}
{{KERNELS}}
}  // namespace {{NS}}
