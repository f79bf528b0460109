//! The streams of `index.js` (`ToolCallStream`, `ResponseStream`): the core's streams, kept here
//! under handles (see [`crate::slots`]) that `index.js`'s objects hold. Every call answers like
//! the other exports (see the crate docs): the events as a list of objects
//! ([`host::emit`]), or the error located in UTF-16 units of all the text fed so far.
//! `index.js` frees a stream once it has finished or failed, and never calls one after a trap
//! replaced the instance that holds it.

use std::cell::RefCell;

use beacon_core::host::{self, ArgError, Failure, Output, Stream};
use beacon_core::{Number, Value};
use wasm_bindgen::prelude::wasm_bindgen;

use crate::slots::Slots;
use crate::{answer, formats_arg, json_arg, tool_options, type_error, HOST};

thread_local! {
    static STREAMS: RefCell<Slots<Stream>> = const { RefCell::new(Slots::new()) };
}

/// `new ToolCallStream(options)`: answers the stream's handle. The options are those of
/// `parse_message` (see there), plus `start`: `"detect"` (none), `"content"` or `"reasoning"`.
#[wasm_bindgen]
#[must_use]
#[allow(clippy::too_many_arguments)]
pub fn tool_call_stream(
    formats: Option<String>,
    ids: Option<String>,
    id_seed: Option<String>,
    start: Option<String>,
    tools: Option<u32>,
    validate: bool,
    unknown: Option<String>,
    repair: bool,
) -> String {
    const FUNC: &str = "ToolCallStream";
    let stream = (|| {
        let formats = formats_arg(FUNC, formats.as_deref())?;
        let ids = crate::ids_arg(FUNC, ids.as_deref(), id_seed.as_deref())?;
        let start = host::start(FUNC, start.as_deref()).map_err(type_error)?;
        let tools = tool_options(FUNC, tools, validate, unknown.as_deref(), repair)?;
        Ok(Stream::text(tools.message_options(formats, ids, start), HOST))
    })();
    keep(stream)
}

/// `new ResponseStream({provider, tools, validate, unknown})`: answers the stream's handle.
/// `provider`: `"auto"` or a provider id; `tools`, `validate`, `unknown`, `repair`: those of `parseResponse`
/// (see [`tool_options`]).
#[wasm_bindgen]
#[must_use]
pub fn response_stream(
    provider: &str,
    tools: Option<u32>,
    validate: bool,
    unknown: Option<String>,
    repair: bool,
) -> String {
    const FUNC: &str = "ResponseStream";
    let stream = (|| {
        let provider = host::provider(FUNC, provider)?;
        let tools = tool_options(FUNC, tools, validate, unknown.as_deref(), repair)?;
        Ok(Stream::response(provider, &tools, HOST))
    })();
    keep(stream.map_err(Failure::Arg))
}

/// Keeps `stream` and answers its handle.
fn keep(stream: Result<Stream, Failure>) -> String {
    let handle = stream.map(|s| STREAMS.with_borrow_mut(|slots| slots.insert(s)));
    answer(8, handle.map(|h| Output::Value(Value::Number(Number::Int(h.into())))))
}

/// `feed(text)`: the events `text` completed.
#[wasm_bindgen]
#[must_use]
pub fn stream_feed(handle: u32, text: &str) -> String {
    step(handle, text.len(), |stream| stream.feed(text))
}

/// `ResponseStream.feed(event)` for an event already decoded: `json` is its JSON text.
#[wasm_bindgen]
#[must_use]
pub fn stream_feed_event(handle: u32, json: &str) -> String {
    match json_arg(json) {
        Ok(event) => step(handle, 0, |stream| stream.feed_value(&event)),
        Err(e) => answer(0, Err(e)),
    }
}

/// `finish()`: the rest of the events, or the error of the whole stream.
#[wasm_bindgen]
#[must_use]
pub fn stream_finish(handle: u32) -> String {
    step(handle, 0, Stream::finish)
}

/// `json.invalid_unicode` for a lone surrogate (`unit`) at UTF-16 `index` of the piece of text
/// about to be fed; `before` is the piece before it. Located in the whole text; the stream is
/// then over (`host::Stream::lone_surrogate`).
#[wasm_bindgen]
#[must_use]
pub fn stream_lone_surrogate(handle: u32, before: &str, unit: u32, index: u32) -> String {
    step(handle, 0, |stream| {
        Err(stream.lone_surrogate(before, unit, index as usize))
    })
}

/// Frees the stream of `handle` (finished, failed, or its object collected).
#[wasm_bindgen]
pub fn free_stream(handle: u32) {
    STREAMS.with_borrow_mut(|slots| slots.remove(handle));
}

/// Runs `call` on the stream of `handle` and answers its events or its error (located by the
/// core in UTF-16 units of all the text fed). `capacity`: the size of the text just fed.
fn step(
    handle: u32,
    capacity: usize,
    call: impl for<'s> FnOnce(&'s mut Stream) -> Result<Output<'s>, Failure>,
) -> String {
    STREAMS.with_borrow_mut(|slots| {
        let result = match slots.get_mut(handle) {
            None => Err(Failure::Arg(ArgError::Type("the stream was freed".to_owned()))),
            Some(stream) => call(stream),
        };
        answer(32 + capacity * 2, result)
    })
}
