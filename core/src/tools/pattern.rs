//! The regular expressions of `pattern` and `patternProperties`, run by `regex-lite` (small
//! compiled size, no Unicode tables). JSON Schema patterns are ECMA-262 expressions; the common
//! subset (classes, `\d \w \s` as ASCII, anchors, groups, alternation, bounded and unbounded
//! repetition) reads the same in both. A pattern `regex-lite` cannot compile (lookaround,
//! backreferences, `\p{…}`) is not checked, and listed as such.

/// A compiled pattern. Like ECMA-262's `RegExp.test`, it matches anywhere in the string unless
/// anchored.
#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    source: String,
    regex: regex_lite::Regex,
}

impl Pattern {
    pub(crate) fn new(source: &str) -> Result<Pattern, String> {
        let regex = regex_lite::Regex::new(source)
            .map_err(|e| format!("the pattern {source:?} is not supported by beacon's regex engine: {e}"))?;
        Ok(Pattern {
            source: source.to_string(),
            regex,
        })
    }

    pub(crate) fn is_match(&self, s: &str) -> bool {
        self.regex.is_match(s)
    }

    pub(crate) fn source(&self) -> &str {
        &self.source
    }
}
