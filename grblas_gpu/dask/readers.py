def read_graph(*a, **k): raise NotImplementedError
