//! A format spec compiled into a tier-1 family: its opening marker (the section's start, or the
//! call's) is the family's marker, every other marker one of its tokens, and the region's last
//! marker its closer; the scanner's marks hold it before the built-in families. The family reads
//! the spec's markers without the white space around them ([`FormatSpec::trimmed`]). A spec is compiled
//! once per process and kept, like the built-in families, for the life of the process: the same
//! spec again (however it was made) is a lookup, so memory grows only with the number of
//! distinct specs a process uses.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};

use super::{CallKind, FormatSpec};
use crate::call::{Format, FormatSet, SpecId};
use crate::error::{ErrorCode, ParseError};
use crate::formats::{Family, Parse};

/// Every spec compiled in this process, with its family: a [`SpecId`] is an index here.
#[derive(Default)]
struct Table {
    families: Vec<&'static Family>,
    ids: HashMap<FormatSpec, SpecId>,
}

fn table() -> std::sync::MutexGuard<'static, Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    TABLE
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// The family of the compiled spec `id`.
pub(crate) fn family(id: SpecId) -> &'static Family {
    table().families[id.0 as usize]
}

impl FormatSet {
    /// The set with `spec`'s format too (instead of the set's spec, if it had one). Its markers
    /// are recognised before the built-in ones: where a spec's marker is also a built-in
    /// family's, the spec reads the call. A spec without markers whose calls are JSON objects
    /// the `json` format reads (`{"name", "arguments"}` or `{"name", "parameters"}`: Llama 3's)
    /// adds the `json` format instead. Errs with `result.unsupported` when the spec's calls
    /// cannot be found in a text (its opening marker, `section.start` or else
    /// `call_markers.start`, has no `<`, `[` or `>`), or a `tag_per_argument` spec lacks a
    /// marker it needs. A spec is compiled once per process: the same spec again costs a lookup.
    pub fn with_spec(self, spec: &FormatSpec) -> Result<FormatSet, ParseError> {
        if spec.reads_as_json() {
            let mut set = self;
            set.insert(Format::Json);
            return Ok(set);
        }
        Ok(self.with_spec_id(compile(spec)?))
    }

    /// The spec whose format the set holds, if any, as it reads (markers trimmed).
    pub fn spec(self) -> Option<&'static FormatSpec> {
        match family(self.spec_id()?).parse {
            Parse::Spec(spec) => Some(spec),
            Parse::Fn(_) => None,
        }
    }
}

/// The id of the compiled `spec` (see the module's documentation).
fn compile(spec: &FormatSpec) -> Result<SpecId, ParseError> {
    let mut table = table();
    if let Some(&id) = table.ids.get(spec) {
        return Ok(id);
    }
    let reading = spec.trimmed();
    check(&reading)?;
    let spec_ref: &'static FormatSpec = Box::leak(Box::new(reading));
    let id = SpecId(u32::try_from(table.families.len()).unwrap_or(u32::MAX));
    table.families.push(Box::leak(Box::new(family_of(spec_ref))));
    table.ids.insert(spec.clone(), id);
    Ok(id)
}

fn unsupported(message: &str) -> ParseError {
    ParseError::new(
        ErrorCode::ResultUnsupported,
        0,
        format!("this format spec cannot be read: {message}"),
    )
}

fn check(spec: &FormatSpec) -> Result<(), ParseError> {
    let opening = opening(spec);
    if opening.is_empty() {
        return Err(unsupported(
            "it has no marker to find its calls by (neither `section.start` nor `call_markers.start`)",
        ));
    }
    if !opening.bytes().any(|b| matches!(b, b'<' | b'[' | b'>')) {
        return Err(unsupported(&format!(
            "its opening marker {opening:?} has no `<`, `[` or `>`, which the scanner finds markers by"
        )));
    }
    if spec.kind == CallKind::TagPerArgument
        && (spec.call_end.is_empty()
            || spec.value_close.is_empty()
            || spec.key_open.is_empty()
            || spec.key_close.is_empty())
    {
        return Err(unsupported(
            "a `tag_per_argument` spec needs `call_markers.end`, `key.start`, `key.end` and `value_close`",
        ));
    }
    if spec.kind == CallKind::ObjectLiteral && spec.string_delimiter.is_empty() {
        return Err(unsupported("an `object_literal` spec needs `string_delimiter`"));
    }
    if spec.id != super::IdPosition::None
        && (spec.id_suffix.is_empty() || matches!(spec.kind, CallKind::JsonObject | CallKind::NameKeyedObject))
    {
        return Err(unsupported(
            "an id needs `id.suffix`, and a tag format (`tag_json`, `tag_per_argument`)",
        ));
    }
    Ok(())
}

/// The marker a region of the spec starts with.
fn opening(spec: &FormatSpec) -> &str {
    if spec.section_start.is_empty() {
        &spec.call_start
    } else {
        &spec.section_start
    }
}

fn family_of(spec: &'static FormatSpec) -> Family {
    let tokens: Vec<&'static str> = [
        &spec.section_end,
        &spec.call_start,
        &spec.call_end,
        &spec.separator,
        &spec.name_suffix,
        &spec.key_open,
        &spec.key_close,
        &spec.key_close_non_string,
        &spec.value_close,
        &spec.id_suffix,
    ]
    .into_iter()
    .map(String::as_str)
    .filter(|t| !t.is_empty())
    .collect();
    let closer = if spec.section_start.is_empty() {
        spec.call_end.as_str()
    } else {
        spec.section_end.as_str()
    };
    let closers: Vec<&'static str> = Some(closer).filter(|c| !c.is_empty()).into_iter().collect();
    Family {
        markers: Box::leak(Box::new([opening(spec)])),
        formats: &[Format::Spec],
        tokens: Box::leak(tokens.into_boxed_slice()),
        closers: Box::leak(closers.into_boxed_slice()),
        json_bodies: &[],
        lead: None,
        parse: Parse::Spec(spec),
    }
}
