//! The `DORA_POLICY_PATTERN` language.
//!
//! ```text
//! pattern  := ws ( "[" ws body ws "]" | body ) ws
//! body     := sequence | list
//! sequence := name ( ws arrow ws name )+          arrow := "→" | "->"
//! list     := entry ( ws "," ws entry )*
//! entry    := name | "(" ws name ws "," ws weight ws ")"
//! weight   := "*" | number                         (finite, > 0)
//! name     := ( letter | digit | "_" | "-" )+      (Unicode letters and digits; "-" not before ">")
//! ```
//!
//! A single name (`[tutor]`) is a one-entry list. Whitespace is any Unicode white space,
//! including newlines and the ideographic space. Tokens are recognised with nom; the
//! structure is walked by hand so that every error can point at the offending column.

mod error;

pub use error::{PolicyError, PolicyErrorKind};

use std::{collections::HashSet, fmt};

use nom::{
    IResult,
    bytes::complete::{tag, take_while},
    number::complete::double,
};

/// How much a participant should speak.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Weight {
    /// `*`: responds after every other speaker (unless it just spoke).
    Priority,
    /// A target share of the words spoken, relative to the other ratios.
    Ratio(f64),
}

/// One entry of a ratio/priority list.
#[derive(Debug, Clone, PartialEq)]
pub struct Participant {
    pub name: String,
    pub weight: Weight,
}

/// A parsed policy pattern.
#[derive(Debug, Clone, PartialEq)]
pub enum Policy {
    /// `[A → B → C]`: strict round robin.
    Sequential(Vec<String>),
    /// `[(A, 2), (B, *), C]`: priority and ratio balancing.
    RatioPriority(Vec<Participant>),
}

impl Policy {
    /// Parses a pattern; see the module documentation for the grammar.
    pub fn parse(pattern: &str) -> Result<Self, PolicyError> {
        Parser::new(pattern).pattern()
    }

    /// Participant names in pattern order.
    pub fn names(&self) -> Vec<&str> {
        match self {
            Policy::Sequential(names) => names.iter().map(String::as_str).collect(),
            Policy::RatioPriority(entries) => entries.iter().map(|p| p.name.as_str()).collect(),
        }
    }

    /// `"sequential"` or `"ratio_priority"`, as in the stats JSON.
    pub fn mode_name(&self) -> &'static str {
        match self {
            Policy::Sequential(_) => "sequential",
            Policy::RatioPriority(_) => "ratio_priority",
        }
    }
}

impl std::str::FromStr for Policy {
    type Err = PolicyError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Policy::parse(s)
    }
}

/// Writes the canonical form, which parses back to an equal value.
impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        match self {
            Policy::Sequential(names) => {
                for (i, name) in names.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" → ")?;
                    }
                    f.write_str(name)?;
                }
            }
            Policy::RatioPriority(entries) => {
                for (i, entry) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "({}, {})", entry.name, entry.weight)?;
                }
            }
        }
        f.write_str("]")
    }
}

impl fmt::Display for Weight {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Weight::Priority => f.write_str("*"),
            // Rust prints the shortest decimal that reads back to the same f64; very
            // large or small values use exponent form to stay short.
            Weight::Ratio(w) if (1e-4..1e15).contains(w) => write!(f, "{w}"),
            Weight::Ratio(w) => write!(f, "{w:e}"),
        }
    }
}

fn is_space(c: char) -> bool {
    c.is_whitespace()
}

fn whitespace(i: &str) -> IResult<&str, &str> {
    take_while(is_space)(i)
}

/// A name: Unicode letters, digits, `_` and `-`, where `-` does not start an `->` arrow.
fn name(i: &str) -> IResult<&str, &str> {
    let mut end = 0;
    let mut chars = i.char_indices().peekable();
    while let Some((idx, c)) = chars.next() {
        let accepted = c.is_alphanumeric()
            || c == '_'
            || (c == '-' && chars.peek().is_none_or(|&(_, next)| next != '>'));
        if !accepted {
            break;
        }
        end = idx + c.len_utf8();
    }
    if end == 0 {
        return Err(nom::Err::Error(nom::error::Error::new(
            i,
            nom::error::ErrorKind::AlphaNumeric,
        )));
    }
    Ok((&i[end..], &i[..end]))
}

fn arrow(i: &str) -> IResult<&str, &str> {
    nom::branch::alt((tag("→"), tag("->")))(i)
}

fn weight(i: &str) -> IResult<&str, Option<f64>> {
    nom::branch::alt((
        nom::combinator::map(tag("*"), |_| None),
        nom::combinator::map(double, Some),
    ))(i)
}

struct Entry {
    name: String,
    name_offset: usize,
    start_offset: usize,
    weight: Option<Weight>,
}

struct Parser<'a> {
    src: &'a str,
    rest: &'a str,
}

type Parsed<T> = Result<T, PolicyError>;

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Self {
        Self { src, rest: src }
    }

    fn offset(&self) -> usize {
        self.src.len() - self.rest.len()
    }

    fn error<T>(&self, offset: usize, kind: PolicyErrorKind) -> Parsed<T> {
        Err(PolicyError {
            pattern: self.src.to_owned(),
            offset,
            kind,
        })
    }

    fn skip_ws(&mut self) {
        if let Ok((rest, _)) = whitespace(self.rest) {
            self.rest = rest;
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        match self.rest.strip_prefix(token) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    fn eat_arrow(&mut self) -> bool {
        match arrow(self.rest) {
            Ok((rest, _)) => {
                self.rest = rest;
                true
            }
            Err(_) => false,
        }
    }

    fn at_arrow(&self) -> bool {
        arrow(self.rest).is_ok()
    }

    /// Describes what stands at the cursor, for error messages.
    fn found(&self) -> String {
        match self.rest.chars().next() {
            None => "the end of the pattern".to_owned(),
            Some(c) => format!("`{c}`"),
        }
    }

    fn pattern(mut self) -> Parsed<Policy> {
        self.skip_ws();
        if self.rest.is_empty() {
            return self.error(0, PolicyErrorKind::Empty);
        }
        let open = self.offset();
        let bracketed = self.eat("[");
        if bracketed {
            self.skip_ws();
            if self.rest.is_empty() {
                return self.error(open, PolicyErrorKind::UnclosedBracket);
            }
            if self.rest.starts_with(']') {
                return self.error(self.offset(), PolicyErrorKind::EmptyList);
            }
        }
        let policy = self.body()?;
        self.skip_ws();
        if bracketed {
            if !self.eat("]") {
                return match self.rest.chars().next() {
                    None => self.error(open, PolicyErrorKind::UnclosedBracket),
                    Some(')') => self.error(self.offset(), PolicyErrorKind::UnmatchedParen),
                    Some(_) => self.error(
                        self.offset(),
                        PolicyErrorKind::TrailingInput {
                            found: self.found(),
                        },
                    ),
                };
            }
            self.skip_ws();
        }
        match self.rest.chars().next() {
            None => Ok(policy),
            Some(']') => self.error(self.offset(), PolicyErrorKind::UnmatchedBracket),
            Some(')') => self.error(self.offset(), PolicyErrorKind::UnmatchedParen),
            Some(_) => self.error(
                self.offset(),
                PolicyErrorKind::TrailingInput {
                    found: self.found(),
                },
            ),
        }
    }

    fn body(&mut self) -> Parsed<Policy> {
        let first = self.entry()?;
        self.skip_ws();
        let policy = if self.at_arrow() {
            self.sequence(first)?
        } else {
            self.list(first)?
        };
        self.check_duplicates(&policy.1)?;
        Ok(policy.0)
    }

    fn sequence(&mut self, first: Entry) -> Parsed<(Policy, Vec<(String, usize)>)> {
        let mut entries = vec![first];
        while self.eat_arrow() {
            self.skip_ws();
            entries.push(self.entry()?);
            self.skip_ws();
            if self.rest.starts_with(',') {
                return self.error(self.offset(), PolicyErrorKind::MixedSeparators);
            }
        }
        if let Some(weighted) = entries.iter().find(|e| e.weight.is_some()) {
            return self.error(weighted.start_offset, PolicyErrorKind::WeightInSequence);
        }
        let spans = entries
            .iter()
            .map(|e| (e.name.clone(), e.name_offset))
            .collect();
        let names = entries.into_iter().map(|e| e.name).collect();
        Ok((Policy::Sequential(names), spans))
    }

    fn list(&mut self, first: Entry) -> Parsed<(Policy, Vec<(String, usize)>)> {
        let mut entries = vec![first];
        loop {
            self.skip_ws();
            if self.at_arrow() {
                return self.error(self.offset(), PolicyErrorKind::MixedSeparators);
            }
            if !self.eat(",") {
                break;
            }
            self.skip_ws();
            entries.push(self.entry()?);
        }
        let spans = entries
            .iter()
            .map(|e| (e.name.clone(), e.name_offset))
            .collect();
        let participants = entries
            .into_iter()
            .map(|e| Participant {
                name: e.name,
                weight: e.weight.unwrap_or(Weight::Ratio(1.0)),
            })
            .collect();
        Ok((Policy::RatioPriority(participants), spans))
    }

    fn check_duplicates(&self, spans: &[(String, usize)]) -> Parsed<()> {
        let mut seen = HashSet::with_capacity(spans.len());
        for (name, offset) in spans {
            if !seen.insert(name.as_str()) {
                return self.error(
                    *offset,
                    PolicyErrorKind::DuplicateName { name: name.clone() },
                );
            }
        }
        Ok(())
    }

    fn name(&mut self) -> Parsed<(String, usize)> {
        let offset = self.offset();
        match name(self.rest) {
            Ok((rest, name)) => {
                self.rest = rest;
                Ok((name.to_owned(), offset))
            }
            Err(_) => self.error(
                offset,
                PolicyErrorKind::ExpectedName {
                    found: self.found(),
                },
            ),
        }
    }

    fn entry(&mut self) -> Parsed<Entry> {
        let start_offset = self.offset();
        if !self.eat("(") {
            let (name, name_offset) = self.name()?;
            return Ok(Entry {
                name,
                name_offset,
                start_offset,
                weight: None,
            });
        }
        self.skip_ws();
        if self.rest.is_empty() {
            return self.error(start_offset, PolicyErrorKind::UnclosedParen);
        }
        let (name, name_offset) = self.name()?;
        self.skip_ws();
        if !self.eat(",") {
            return match self.rest.is_empty() {
                true => self.error(start_offset, PolicyErrorKind::UnclosedParen),
                false => self.error(
                    self.offset(),
                    PolicyErrorKind::ExpectedComma {
                        found: self.found(),
                    },
                ),
            };
        }
        self.skip_ws();
        let weight_offset = self.offset();
        let weight = match weight(self.rest) {
            Ok((rest, parsed)) => {
                let text = &self.rest[..self.rest.len() - rest.len()];
                self.rest = rest;
                match parsed {
                    None => Weight::Priority,
                    Some(w) if w.is_finite() && w > 0.0 => Weight::Ratio(w),
                    Some(_) => {
                        return self.error(
                            weight_offset,
                            PolicyErrorKind::InvalidWeight {
                                value: text.to_owned(),
                            },
                        );
                    }
                }
            }
            Err(_) if self.rest.is_empty() => {
                return self.error(start_offset, PolicyErrorKind::UnclosedParen);
            }
            Err(_) => {
                return self.error(
                    weight_offset,
                    PolicyErrorKind::ExpectedWeight {
                        found: self.found(),
                    },
                );
            }
        };
        self.skip_ws();
        if !self.eat(")") {
            return match self.rest.is_empty() {
                true => self.error(start_offset, PolicyErrorKind::UnclosedParen),
                false => self.error(
                    self.offset(),
                    PolicyErrorKind::ExpectedCloseParen {
                        found: self.found(),
                    },
                ),
            };
        }
        Ok(Entry {
            name,
            name_offset,
            start_offset,
            weight: Some(weight),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ratio(name: &str, w: f64) -> Participant {
        Participant {
            name: name.into(),
            weight: Weight::Ratio(w),
        }
    }

    fn priority(name: &str) -> Participant {
        Participant {
            name: name.into(),
            weight: Weight::Priority,
        }
    }

    fn seq(names: &[&str]) -> Policy {
        Policy::Sequential(names.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn sequential_forms() {
        let expected = seq(&["judge", "defense", "prosecution"]);
        for pattern in [
            "[judge → defense → prosecution]",
            "judge → defense → prosecution",
            "[judge -> defense -> prosecution]",
            "judge->defense->prosecution",
            "  [ judge→defense ->  prosecution ]  ",
            "[judge\n → defense\n → prosecution]",
        ] {
            assert_eq!(Policy::parse(pattern).unwrap(), expected, "{pattern}");
        }
    }

    #[test]
    fn ratio_forms() {
        assert_eq!(
            Policy::parse("[(judge, 2), (defense, 1.5), (prosecution, 1)]").unwrap(),
            Policy::RatioPriority(vec![
                ratio("judge", 2.0),
                ratio("defense", 1.5),
                ratio("prosecution", 1.0)
            ])
        );
        assert_eq!(
            Policy::parse("[(human, 0.001), (tutor, *), (student1, 1), (student2, 1)]").unwrap(),
            Policy::RatioPriority(vec![
                ratio("human", 0.001),
                priority("tutor"),
                ratio("student1", 1.0),
                ratio("student2", 1.0)
            ])
        );
        assert_eq!(
            Policy::parse("judge, (defense,*),prosecution").unwrap(),
            Policy::RatioPriority(vec![
                ratio("judge", 1.0),
                priority("defense"),
                ratio("prosecution", 1.0)
            ])
        );
        assert_eq!(
            Policy::parse("[tutor]").unwrap(),
            Policy::RatioPriority(vec![ratio("tutor", 1.0)])
        );
    }

    #[test]
    fn unicode_names_and_whitespace() {
        assert_eq!(
            Policy::parse("[孙老师 → 学生_1 → élève-2]").unwrap(),
            seq(&["孙老师", "学生_1", "élève-2"])
        );
        // Ideographic space and tabs are whitespace too.
        assert_eq!(
            Policy::parse("[(孙老师,\u{3000}*),\t(小明, 2)]").unwrap(),
            Policy::RatioPriority(vec![priority("孙老师"), ratio("小明", 2.0)])
        );
        // `-` belongs to a name unless it starts an arrow.
        assert_eq!(Policy::parse("a-->b").unwrap(), seq(&["a-", "b"]));
    }

    fn err(pattern: &str) -> PolicyError {
        Policy::parse(pattern).expect_err(pattern)
    }

    #[test]
    fn rejections_point_at_the_offending_column() {
        type Case = (&'static str, usize, fn(&PolicyErrorKind) -> bool);
        let cases: &[Case] = &[
            ("", 0, |k| matches!(k, PolicyErrorKind::Empty)),
            ("   ", 0, |k| matches!(k, PolicyErrorKind::Empty)),
            ("[]", 1, |k| matches!(k, PolicyErrorKind::EmptyList)),
            ("[ ]", 2, |k| matches!(k, PolicyErrorKind::EmptyList)),
            (
                "[a, b, a]",
                7,
                |k| matches!(k, PolicyErrorKind::DuplicateName { name } if name == "a"),
            ),
            ("[a → b → a]", 13, |k| {
                matches!(k, PolicyErrorKind::DuplicateName { .. })
            }),
            ("[(a, 0)]", 5, |k| {
                matches!(k, PolicyErrorKind::InvalidWeight { .. })
            }),
            ("[(a, -1)]", 5, |k| {
                matches!(k, PolicyErrorKind::InvalidWeight { .. })
            }),
            ("[(a, NaN)]", 5, |k| {
                matches!(k, PolicyErrorKind::InvalidWeight { .. })
            }),
            ("[(a, inf)]", 5, |k| {
                matches!(k, PolicyErrorKind::InvalidWeight { .. })
            }),
            ("[(a, 1e999)]", 5, |k| {
                matches!(k, PolicyErrorKind::InvalidWeight { .. })
            }),
            ("[a → b, c]", 8, |k| {
                matches!(k, PolicyErrorKind::MixedSeparators)
            }),
            ("[a, b → c]", 6, |k| {
                matches!(k, PolicyErrorKind::MixedSeparators)
            }),
            ("[a → b", 0, |k| {
                matches!(k, PolicyErrorKind::UnclosedBracket)
            }),
            ("[", 0, |k| matches!(k, PolicyErrorKind::UnclosedBracket)),
            ("a → b]", 7, |k| {
                matches!(k, PolicyErrorKind::UnmatchedBracket)
            }),
            ("[(a, 1]", 6, |k| {
                matches!(k, PolicyErrorKind::ExpectedCloseParen { .. })
            }),
            ("(a, 1", 0, |k| matches!(k, PolicyErrorKind::UnclosedParen)),
            ("[a, b)]", 5, |k| {
                matches!(k, PolicyErrorKind::UnmatchedParen)
            }),
            ("[a → b] x", 10, |k| {
                matches!(k, PolicyErrorKind::TrailingInput { .. })
            }),
            ("[a, b]]", 6, |k| {
                matches!(k, PolicyErrorKind::UnmatchedBracket)
            }),
            ("[(a, 1) → b]", 1, |k| {
                matches!(k, PolicyErrorKind::WeightInSequence)
            }),
            ("[a, ]", 4, |k| {
                matches!(k, PolicyErrorKind::ExpectedName { .. })
            }),
            ("[a, (b 2)]", 7, |k| {
                matches!(k, PolicyErrorKind::ExpectedComma { .. })
            }),
            ("[a, (b, x)]", 8, |k| {
                matches!(k, PolicyErrorKind::ExpectedWeight { .. })
            }),
            ("[a; b]", 2, |k| {
                matches!(k, PolicyErrorKind::TrailingInput { .. })
            }),
            ("[a → ]", 7, |k| {
                matches!(k, PolicyErrorKind::ExpectedName { .. })
            }),
            ("[a → @]", 7, |k| {
                matches!(k, PolicyErrorKind::ExpectedName { .. })
            }),
        ];
        for (pattern, offset, kind) in cases {
            let e = err(pattern);
            assert_eq!(e.offset, *offset, "offset for {pattern:?}: {e}");
            assert!(kind(&e.kind), "kind for {pattern:?}: {:?}", e.kind);
        }
    }

    #[test]
    fn error_shows_pattern_and_caret() {
        let e = err("[a, b, a]");
        assert_eq!(
            e.to_string(),
            "invalid policy pattern: participant `a` appears twice (column 8)\n  [a, b, a]\n         ^"
        );
        // Wide characters take two terminal columns; the caret follows them.
        let e = err("[老师, 学生, 老师]");
        let rendered = e.to_string();
        let lines: Vec<&str> = rendered.lines().collect();
        assert_eq!(lines[2], format!("  {}^", " ".repeat(13)));
        assert_eq!(e.column(), 10);
    }

    #[test]
    fn multi_line_error_shows_the_offending_line() {
        let e = err("[(a, 1),\n (b, 0)]");
        let rendered = e.to_string();
        assert!(rendered.contains("\n   (b, 0)]\n"), "{rendered}");
        assert!(rendered.ends_with("\n       ^"), "{rendered}");
        assert_eq!(e.column(), 6);
    }

    #[test]
    fn display_is_canonical() {
        let p = Policy::parse("judge->defense -> prosecution").unwrap();
        assert_eq!(p.to_string(), "[judge → defense → prosecution]");
        let p = Policy::parse("[(human,0.001),(tutor,*),student1,(student2,1.5)]").unwrap();
        assert_eq!(
            p.to_string(),
            "[(human, 0.001), (tutor, *), (student1, 1), (student2, 1.5)]"
        );
        let tiny = Policy::RatioPriority(vec![ratio("a", 1e-9), ratio("b", 3e20)]);
        assert_eq!(tiny.to_string(), "[(a, 1e-9), (b, 3e20)]");
        assert_eq!(Policy::parse(&tiny.to_string()).unwrap(), tiny);
    }
}
