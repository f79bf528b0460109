# Stubs for the native module built from bindings-python/ (PyO3). Private: use `beacon`, whose
# functions document these.
from typing import Any, Callable, Dict, List, Literal, Optional, Tuple, Union

from . import (
    ErrorCode,
    Format,
    Message,
    Provider,
    ProviderCall,
    Response,
    StreamEvent,
    StreamScan,
    ToolCall,
    ToolCallWithFormat,
    ToolResult,
)

__version__: str
FORMATS: List[Format]
PROVIDERS: List[Provider]
ERROR_CODES: List[ErrorCode]
ARROW_COLUMNS: List[str]

class Tools:
    def __init__(self, definitions: Union[List[Any], Tuple[Any, ...]]) -> None: ...
    def __len__(self) -> int: ...
    @property
    def names(self) -> List[str]: ...
    def unchecked(self) -> List[Tuple[str, str, str]]: ...

class Spec:
    def __init__(self, described: Dict[str, Any]) -> None: ...

class Direct:
    # `name`: "parse_tool_call", "parse_tool_calls", "parse_message" or "parse_response";
    # `function` is that public function, which runs for every call but the one with the input
    # alone.
    def __init__(self, name: str, function: Callable[..., Any]) -> None: ...
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

def parse_tool_call(
    text: str,
    *,
    formats: Optional[List[str]] = None,
    tools: Optional[Tools] = None,
    validate: bool = True,
    unknown: Optional[str] = None,
    repair: bool = False,
    spec: Optional[Spec] = None,
) -> ToolCall: ...
def parse_message(
    text: str,
    *,
    formats: Optional[List[str]] = None,
    ids: Optional[str] = None,
    tools: Optional[Tools] = None,
    validate: bool = True,
    unknown: Optional[str] = None,
    id_seed: Optional[str] = None,
    repair: bool = False,
    spec: Optional[Spec] = None,
    arguments_text: bool = False,
) -> Message: ...
def scan_stream(text: str) -> StreamScan: ...
def infer_format(
    template: Union[str, Dict[str, Any]],
    bos_token: Optional[str] = None,
    eos_token: Optional[str] = None,
    special_tokens: Optional[List[str]] = None,
) -> Dict[str, Any]: ...

class ToolCallStream:
    def __new__(
        cls,
        *,
        formats: Optional[List[str]] = None,
        ids: Optional[str] = None,
        tools: Optional[Tools] = None,
        validate: bool = True,
        unknown: Optional[str] = None,
        start: Optional[str] = None,
        id_seed: Optional[str] = None,
        repair: bool = False,
        spec: Optional[Spec] = None,
    ) -> "ToolCallStream": ...
    def feed(self, delta: str) -> List[StreamEvent]: ...
    def finish(self) -> List[StreamEvent]: ...
    @property
    def finished(self) -> bool: ...

class ResponseStream:
    # `provider` None means "auto".
    def __new__(
        cls,
        provider: Union[Provider, Literal["auto"], None] = None,
        *,
        tools: Optional[Tools] = None,
        validate: bool = True,
        unknown: Optional[str] = None,
        repair: bool = False,
    ) -> "ResponseStream": ...
    def feed(self, chunk: Any) -> List[StreamEvent]: ...
    def finish(self) -> List[StreamEvent]: ...
    @property
    def finished(self) -> bool: ...
def parse_tool_calls(
    text: str,
    *,
    include_format: bool = False,
    formats: Optional[List[str]] = None,
    tools: Optional[Tools] = None,
    validate: bool = True,
    unknown: Optional[str] = None,
    repair: bool = False,
    spec: Optional[Spec] = None,
) -> Union[List[ToolCall], List[ToolCallWithFormat]]: ...

# `provider` defaults to None here, which means "auto"; `beacon` always passes it.
def parse_response(
    response: Response,
    *,
    provider: Union[Provider, Literal["auto"], None] = None,
    text_fallback: bool = False,
    tools: Optional[Tools] = None,
    validate: bool = True,
    unknown: Optional[str] = None,
    repair: bool = False,
) -> List[ProviderCall]: ...
def detect_provider(response: Response) -> Optional[Provider]: ...
def has_tool_calls(
    response: Response,
    *,
    provider: Union[Provider, Literal["auto"], None] = None,
    text_fallback: bool = False,
) -> bool: ...
def format_results(
    results: Union[List[ToolResult], Tuple[ToolResult, ...]], provider: Provider
) -> List[Any]: ...
def format_calls(
    calls: Any, provider: str, *, content: Optional[str] = None, spec: Optional[Spec] = None
) -> Any: ...
def describe_error(code: str, line: int, column: int, message: str) -> str: ...
def _panic_for_testing() -> None: ...  # raises ToolCallError("internal", ...); tests only

# Dataset scale (beacon/_batch.py documents them).
from typing import Dict, Iterable

from ._errors import ToolCallError

def parse_many(
    texts: Iterable[Optional[str]],
    *,
    include_format: bool = False,
    formats: Optional[List[str]] = None,
    tools: Optional[Tools] = None,
    validate: bool = True,
    unknown: Optional[str] = None,
    threads: Optional[int] = None,
    repair: bool = False,
    spec: Optional[Spec] = None,
) -> List[Union[List[ToolCall], List[ToolCallWithFormat], ToolCallError, None]]: ...
def parse_arrow(
    array: Any,
    *,
    formats: Optional[List[str]] = None,
    tools: Optional[Tools] = None,
    validate: bool = True,
    unknown: Optional[str] = None,
    threads: Optional[int] = None,
    repair: bool = False,
    spec: Optional[Spec] = None,
) -> ArrowArray: ...

class ArrowArray:
    def __len__(self) -> int: ...
    def __arrow_c_array__(self, requested_schema: Any = None) -> Tuple[Any, Any]: ...
    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any: ...
    def to_pylist(self) -> List[Dict[str, Any]]: ...
