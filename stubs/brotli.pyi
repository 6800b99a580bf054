# Brotli 1.2 (the C extension `_brotli`; signatures from its docstrings).

MODE_GENERIC: int
MODE_TEXT: int
MODE_FONT: int

class error(Exception): ...

def compress(string: bytes, mode: int = ..., quality: int = ..., lgwin: int = ..., lgblock: int = ...) -> bytes: ...
def decompress(string: bytes) -> bytes: ...
