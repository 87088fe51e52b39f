//! Names that are bound without an import: Python builtins and JavaScript/TypeScript globals.
//! They become external nodes `<builtin>.name`.

pub const PYTHON: &[&str] = &["ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup", "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError", "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError", "DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning", "EnvironmentError", "Exception", "ExceptionGroup", "False", "FileExistsError", "FileNotFoundError", "FloatingPointError", "FutureWarning", "GeneratorExit", "IOError", "ImportError", "ImportWarning", "IndentationError", "IndexError", "InterruptedError", "IsADirectoryError", "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError", "ModuleNotFoundError", "NameError", "None", "NotADirectoryError", "NotImplemented", "NotImplementedError", "OSError", "OverflowError", "PendingDeprecationWarning", "PermissionError", "ProcessLookupError", "RecursionError", "ReferenceError", "ResourceWarning", "RuntimeError", "RuntimeWarning", "StopAsyncIteration", "StopIteration", "SyntaxError", "SyntaxWarning", "SystemError", "SystemExit", "TabError", "TimeoutError", "True", "TypeError", "UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError", "UnicodeWarning", "UserWarning", "ValueError", "Warning", "ZeroDivisionError", "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes", "callable", "chr", "classmethod", "compile", "complex", "copyright", "credits", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec", "exit", "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash", "help", "hex", "id", "input", "int", "isinstance", "issubclass", "iter", "len", "license", "list", "locals", "map", "max", "memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print", "property", "quit", "range", "repr", "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "vars", "zip", "__import__", "__name__", "__file__", "__doc__"];

pub const SCRIPT: &[&str] = &[
    "Array", "ArrayBuffer", "AbortController", "Atomics", "BigInt", "Blob", "Boolean", "Buffer", "DataView", "Date",
    "Error", "EvalError", "Event", "EventTarget", "FinalizationRegistry", "FormData", "Function", "Headers",
    "Infinity", "Intl", "JSON", "Map", "Math", "NaN", "Number", "Object", "Promise", "Proxy", "RangeError",
    "ReferenceError", "Reflect", "RegExp", "Request", "Response", "Set", "SharedArrayBuffer", "String", "Symbol",
    "SyntaxError", "TextDecoder", "TextEncoder", "TypeError", "URIError", "URL", "URLSearchParams", "Uint8Array",
    "Int8Array", "Uint16Array", "Int16Array", "Uint32Array", "Int32Array", "Float32Array", "Float64Array",
    "WeakMap", "WeakRef", "WeakSet", "WebSocket", "Worker", "atob", "btoa", "clearImmediate", "clearInterval",
    "clearTimeout", "console", "crypto", "decodeURI", "decodeURIComponent", "document", "encodeURI",
    "encodeURIComponent", "eval", "exports", "fetch", "globalThis", "isFinite", "isNaN", "localStorage", "location",
    "module", "navigator", "parseFloat", "parseInt", "performance", "process", "queueMicrotask", "require",
    "sessionStorage", "setImmediate", "setInterval", "setTimeout", "structuredClone", "undefined", "window",
    "__dirname", "__filename",
    // Global types.
    "Awaited", "ConstructorParameters", "Exclude", "Extract", "InstanceType", "Iterable", "IterableIterator",
    "Iterator", "NonNullable", "Omit", "Parameters", "Partial", "Pick", "PromiseLike", "Readonly", "ReadonlyArray",
    "ReadonlyMap", "ReadonlySet", "Record", "Required", "ReturnType", "ThisType", "AsyncIterable",
    "AsyncIterator", "AsyncGenerator", "Generator", "PropertyKey", "TemplateStringsArray", "ArrayLike",
    "NodeJS", "React", "JSX",
];
