"""Dataset scale: many texts at once, on every core, with each row's error returned as data.

:func:`parse_many` takes Python strings and gives Python objects; :func:`parse_arrow` takes an
Arrow string array and gives an Arrow struct array, with no Python object per row. Both parse in
Rust on a thread pool without holding the GIL.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Union

from . import _core
from ._errors import ToolCallError
from ._template import spec_arg
from ._tools import compiled, tools_arg

__all__ = ["ArrowArray", "parse_arrow", "parse_many"]

#: The result of :func:`parse_arrow`: an Arrow struct array exported through the Arrow PyCapsule
#: interface (``__arrow_c_array__`` and ``__arrow_c_stream__``), plus ``len()`` and
#: ``to_pylist()``. Hand it to any Arrow library: ``pyarrow.array(r)``, ``pyarrow.table(r)``,
#: ``polars.Series(r)``, ``polars.from_arrow(r)``, ``duckdb``…
ArrowArray = _core.ArrowArray


def _format_ids(formats: Optional[Iterable[str]]) -> Optional[List[str]]:
    from . import _format_ids as format_ids  # one check of the option, shared with parse_tool_calls

    return format_ids(formats)


def parse_many(
    texts: Iterable[Optional[str]],
    *,
    include_format: bool = False,
    formats: Optional[Iterable[str]] = None,
    tools: Any = None,
    validate: bool = True,
    unknown: str = "error",
    threads: Optional[int] = None,
    repair: bool = False,
    template: Any = None,
) -> List[Union[List[Dict[str, Any]], ToolCallError, None]]:
    """Parse every text of ``texts`` in parallel; errors are returned, never raised.

    Returns a list with one entry per input, in input order:

    - the row's calls, exactly as :func:`parse_tool_calls` returns them with the same options
      (``{"name", "arguments"}``, ``"id"`` first when the format writes one, ``"format"`` with
      ``include_format=True``);
    - ``[]`` for a row with no tool call (where :func:`parse_tool_calls` raises
      :class:`NoToolCallFoundError`);
    - the :class:`ToolCallError` itself for a broken row (code, message, code-point position,
      line and column, as :func:`parse_tool_calls` would have raised it);
    - ``None`` for a ``None`` row (a missing value in a column).

    >>> parse_many(['<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>',
    ...             "Paris is the capital of France.",
    ...             '<tool_call>{"name": "f", "arguments": {"x": }}</tool_call>',
    ...             None])
    [[{'name': 'f', 'arguments': {'x': 1}}], [], ToolCallError('json.unexpected_token', ...), None]

    The texts are parsed in Rust on ``threads`` threads (default: every available core) with the
    GIL released, 512 rows at a time, while the calling thread builds the Python objects of the
    chunk before; memory beyond the result stays that of two chunks however long ``texts`` is
    (``texts`` may be a generator). The cyclic garbage collector is paused while a chunk's
    objects are built (they hold no cycles) and restored before the GIL is released.

    ``formats``, ``tools``, ``validate``, ``unknown``, ``repair`` and ``template`` mean what they
    mean for :func:`parse_tool_calls` (a list of definitions is compiled once for the whole batch; a
    ``tool_call.schema`` error has its ``path``). ``as_models`` is not offered: build the models
    from the rows you keep.

    Raises:
        TypeError: ``texts`` is a single ``str`` (pass a list of texts), or holds something other
            than ``str`` and ``None`` (the message names its index); ``formats`` is not a
            collection of ids; ``tools`` is malformed.
        ValueError: ``formats`` holds an unknown id, ``unknown`` is not an option, or ``threads``
            is 0.
    """
    t = compiled(tools_arg(tools))
    return _core.parse_many(
        texts,
        include_format=include_format,
        formats=_format_ids(formats),
        tools=t,
        validate=validate,
        unknown=unknown,
        threads=threads,
        repair=repair,
        spec=None if template is None else spec_arg("parse_many", template),
    )


def parse_arrow(
    array: Any,
    *,
    formats: Optional[Iterable[str]] = None,
    tools: Any = None,
    validate: bool = True,
    unknown: str = "error",
    threads: Optional[int] = None,
    repair: bool = False,
    template: Any = None,
) -> ArrowArray:
    """Parse every row of an Arrow string array; the result is an Arrow struct array.

    ``array`` is anything that exports Arrow strings (``utf8``, ``large_utf8``, ``utf8_view``)
    through the Arrow PyCapsule interface: a pyarrow ``Array`` or ``ChunkedArray``, a Polars
    ``Series``, a DuckDB or pandas (Arrow dtype) column, an arro3 or nanoarrow array. No Python
    object is made per row. A plain iterable of ``str`` / ``None`` is accepted too (read like
    :func:`parse_many`'s ``texts``), so the Arrow result needs no Arrow library on the way in.

    The result has one row per input row, in order, with the columns:

    ==================  =====================================================================
    ``calls``           ``list<struct<id, name, arguments, format>>``; ``arguments`` is the
                        arguments object as compact JSON text (keys as written, integers
                        exact); ``id`` is null unless the format writes one; ``[]`` when the
                        row has no call
    ``format``          the first call's format id (tagged formats may mix within a row:
                        each call has its own), null without calls
    ``content``         the text around the calls (see ``parse_message``)
    ``reasoning``       the reasoning blocks' text, or null
    ``repairs``         with ``repair=True``, the receipts as compact JSON text (a list of
                        ``{"code", "message", "position", "call_index"}``); ``[]`` otherwise
    ``error_code``      null when the row parsed; else the :class:`ToolCallError` code
    ``error_message``   its message
    ``error_position``  its position, in code points of the row's text (``int64``)
    ``error_truncated`` whether the text ended inside the call (``bool``)
    ==================  =====================================================================

    A row that failed has null ``calls``, ``format``, ``content``, ``reasoning`` and ``repairs``; a null input
    row gives a row that is null in every column.

    >>> import pyarrow as pa
    >>> texts = pa.array(['<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>', None])
    >>> pa.array(parse_arrow(texts)).to_pylist()[0]["calls"]
    [{'id': None, 'name': 'f', 'arguments': '{"x":1}', 'format': 'hermes'}]

    Polars: ``df.with_columns(parsed=pl.Series(beacon.parse_arrow(df["output"])))`` adds the
    result as a struct column; ``pl.from_arrow(beacon.parse_arrow(...))`` gives it as a
    DataFrame.

    ``formats``, ``tools``, ``validate``, ``unknown``, ``repair`` and ``template`` mean what they
    mean for :func:`parse_message` (a list of definitions is compiled once for the whole array; with
    ``unknown="drop"`` a dropped call is in no row's ``calls``).

    Raises:
        TypeError: ``array`` holds something other than strings (e.g. a whole table: pass one
            column), or is neither Arrow data nor an iterable of ``str``; ``tools`` is malformed.
        ValueError: ``formats`` holds an unknown id, ``unknown`` is not an option, ``threads`` is
            0, the Arrow data is malformed, or a result column would pass 2 GiB in one array (pass
            smaller chunks).
    """
    t = compiled(tools_arg(tools))
    return _core.parse_arrow(
        array,
        formats=_format_ids(formats),
        tools=t,
        validate=validate,
        unknown=unknown,
        threads=threads,
        repair=repair,
        spec=None if template is None else spec_arg("parse_arrow", template),
    )
