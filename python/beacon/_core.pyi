# Stubs for the native module built from bindings-python/ (PyO3). Private: use `beacon`, whose
# functions document these.
from typing import List, Union

from . import Format, ToolCall, ToolCallWithFormat

__version__: str
FORMATS: List[Format]

def parse_tool_call(text: str) -> ToolCall: ...
def parse_tool_calls(
    text: str, *, include_format: bool = False
) -> Union[List[ToolCall], List[ToolCallWithFormat]]: ...
def _panic_for_testing() -> None: ...  # raises ToolCallError("internal", ...); tests only
