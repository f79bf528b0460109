//! Walks stream [`Event`]s (of [`crate::ToolCallStream`] and [`crate::ResponseStream`]) into a
//! host's [`Sink`], as a list of plain mappings, one per event, keyed by the `type` first:
//!
//! - `{"type": "content", "text"}` and `{"type": "reasoning", "text"}`;
//! - `{"type": "call_start", "index", "id", "name", "format"}` (`id` null when the call has none);
//! - `{"type": "arguments", "index", "delta"}` (a fragment of the arguments' JSON text);
//! - `{"type": "call_end", "index", "arguments"}`.
//!
//! Events carry no positions, so nothing here depends on the host's unit.

use crate::stream::Event;

use super::emit::{count, field, list, object, optional_str, Field, Sink};

/// Builds `events` in `sink`: a list of one mapping per event (see the module docs).
pub fn emit_events<S: Sink>(sink: &mut S, events: Vec<Event>) -> Result<S::Value, S::Error> {
    let n = events.len();
    list(sink, n, events, event)
}

fn event<S: Sink>(sink: &mut S, event: Event) -> Result<S::Value, S::Error> {
    let kind = event.kind();
    let len = match &event {
        Event::Content { .. } | Event::Reasoning { .. } => 2,
        Event::CallStart { .. } => 5,
        Event::Arguments { .. } | Event::CallEnd { .. } => 3,
    };
    let mut m = sink.map(len)?;
    field(sink, &mut m, Field::Type, |s| s.id(kind))?;
    match event {
        Event::Content { text } | Event::Reasoning { text } => {
            field(sink, &mut m, Field::Text, |s| s.str(&text))?;
        }
        Event::CallStart {
            index,
            id,
            name,
            format,
        } => {
            field(sink, &mut m, Field::Index, |s| s.int(count(index)))?;
            field(sink, &mut m, Field::Id, |s| optional_str(s, id.as_deref()))?;
            field(sink, &mut m, Field::Name, |s| s.str(&name))?;
            field(sink, &mut m, Field::Format, |s| s.id(format.as_str()))?;
        }
        Event::Arguments { index, delta } => {
            field(sink, &mut m, Field::Index, |s| s.int(count(index)))?;
            field(sink, &mut m, Field::Delta, |s| s.str(&delta))?;
        }
        Event::CallEnd { index, arguments } => {
            field(sink, &mut m, Field::Index, |s| s.int(count(index)))?;
            field(sink, &mut m, Field::Arguments, |s| object(s, arguments))?;
        }
    }
    sink.end_map(m)
}
