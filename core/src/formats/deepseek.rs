//! (not written yet)

use crate::error::ParseError;
use crate::ToolCall;

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[
        crate::Format::DeepseekV3,
        crate::Format::DeepseekV31,
        crate::Format::DeepseekV32,
    ],
    markers: &[],
    tokens: &[],
    parse,
};

fn parse(_text: &str, start: usize, _out: &mut Vec<ToolCall>) -> Result<usize, ParseError> {
    Ok(start + 1)
}
