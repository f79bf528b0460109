use crate::{ErrorCode, ParseError, ToolCall};
pub(crate) fn parse_all(_text: &str) -> Result<Vec<ToolCall>, ParseError> {
    Err(ParseError::new(ErrorCode::NotFound, 0, "no tool call found"))
}
