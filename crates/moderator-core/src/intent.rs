//! What agents want: speak, interrupt or pass, with an urgency from 1 to 5.
//!
//! Intents come either from a model's tiny JSON answer ([`parse_intent`], strict, so a
//! rambling model is caught instead of misread) or from the deterministic
//! [`heuristic_intent`], used offline and as the fallback when the answer is missing or
//! invalid.

use serde::{Deserialize, Serialize};
use text::script::is_cjk_letter;

use crate::scenario::Phase;

/// Answers longer than this are rejected before parsing (a valid one has ~40 bytes).
pub const MAX_INTENT_ANSWER_BYTES: usize = 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntentKind {
    /// Wants the floor after the current speaker.
    Speak,
    /// Wants to cut in; granted as an interruption only where the phase allows it and
    /// the urgency is at least [`crate::MIN_INTERRUPT_URGENCY`], otherwise it counts as
    /// an ordinary request to speak.
    Interrupt,
    /// Does not want the floor.
    Pass,
}

impl IntentKind {
    pub fn as_str(self) -> &'static str {
        match self {
            IntentKind::Speak => "speak",
            IntentKind::Interrupt => "interrupt",
            IntentKind::Pass => "pass",
        }
    }
}

/// One agent's intent for the current round.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Intent {
    pub agent: String,
    pub kind: IntentKind,
    /// 1..=5; the rules clamp values outside that range.
    pub urgency: u8,
}

impl Intent {
    /// An intent with `urgency` clamped to 1..=5.
    pub fn new(agent: impl Into<String>, kind: IntentKind, urgency: u8) -> Self {
        Self {
            agent: agent.into(),
            kind,
            urgency: urgency.clamp(1, 5),
        }
    }

    pub fn speak(agent: impl Into<String>, urgency: u8) -> Self {
        Self::new(agent, IntentKind::Speak, urgency)
    }

    pub fn interrupt(agent: impl Into<String>, urgency: u8) -> Self {
        Self::new(agent, IntentKind::Interrupt, urgency)
    }

    pub fn pass(agent: impl Into<String>) -> Self {
        Self::new(agent, IntentKind::Pass, 1)
    }

    /// Whether the agent asks for the floor (speak or interrupt).
    pub fn wants_floor(&self) -> bool {
        self.kind != IntentKind::Pass
    }
}

/// Why a model's intent answer was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IntentError {
    #[error("the answer is empty")]
    Empty,
    #[error("the answer is longer than {MAX_INTENT_ANSWER_BYTES} bytes")]
    TooLong,
    #[error("the answer is not a single JSON value: {0}")]
    NotJson(String),
    #[error("the answer is not a JSON object")]
    NotAnObject,
    #[error("unknown field `{0}` (expected `intent` and `urgency`)")]
    UnknownField(String),
    #[error("missing field `{0}`")]
    MissingField(&'static str),
    #[error("`intent` must be a string")]
    IntentNotAString,
    #[error("unknown intent `{0}` (expected speak, interrupt or pass)")]
    UnknownIntent(String),
    #[error("`urgency` must be an integer, got {0}")]
    UrgencyNotAnInteger(String),
    #[error("urgency {0} is outside 1..=5")]
    UrgencyOutOfRange(i128),
}

/// Parses a model's answer such as `{"intent":"speak","urgency":3}`.
///
/// Strict on purpose: exactly one JSON object (surrounding whitespace allowed), only the
/// fields `intent` (`speak` | `interrupt` | `pass`, lowercase) and `urgency` (an integer
/// in 1..=5). `urgency` may be omitted for `pass` only (it is then 1). Anything else,
/// including prose or code fences around the object, is an error so that the caller
/// falls back to [`heuristic_intent`]. Never panics.
pub fn parse_intent(agent: &str, answer: &str) -> Result<Intent, IntentError> {
    if answer.len() > MAX_INTENT_ANSWER_BYTES {
        return Err(IntentError::TooLong);
    }
    if answer.trim().is_empty() {
        return Err(IntentError::Empty);
    }
    let value: serde_json::Value =
        serde_json::from_str(answer).map_err(|e| IntentError::NotJson(e.to_string()))?;
    let serde_json::Value::Object(map) = value else {
        return Err(IntentError::NotAnObject);
    };
    if let Some(key) = map.keys().find(|k| *k != "intent" && *k != "urgency") {
        return Err(IntentError::UnknownField(truncate(key, 40)));
    }
    let kind = match map.get("intent") {
        None => return Err(IntentError::MissingField("intent")),
        Some(serde_json::Value::String(s)) => match s.as_str() {
            "speak" => IntentKind::Speak,
            "interrupt" => IntentKind::Interrupt,
            "pass" => IntentKind::Pass,
            other => return Err(IntentError::UnknownIntent(truncate(other, 40))),
        },
        Some(_) => return Err(IntentError::IntentNotAString),
    };
    let urgency = match map.get("urgency") {
        None if kind == IntentKind::Pass => 1,
        None => return Err(IntentError::MissingField("urgency")),
        Some(serde_json::Value::Number(n)) => {
            let wide = if let Some(i) = n.as_i64() {
                i128::from(i)
            } else if let Some(u) = n.as_u64() {
                i128::from(u)
            } else {
                return Err(IntentError::UrgencyNotAnInteger(truncate(
                    &n.to_string(),
                    40,
                )));
            };
            if !(1..=5).contains(&wide) {
                return Err(IntentError::UrgencyOutOfRange(wide));
            }
            wide as u8
        }
        Some(other) => {
            return Err(IntentError::UrgencyNotAnInteger(truncate(
                &other.to_string(),
                40,
            )));
        }
    };
    Ok(Intent {
        agent: agent.to_owned(),
        kind,
        urgency,
    })
}

fn truncate(s: &str, max_chars: usize) -> String {
    s.chars().take(max_chars).collect()
}

/// What the heuristic looks at, as seen by one agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeuristicContext {
    /// Who said the last line: an agent id, or `None` for the moderator / nothing yet.
    pub last_speaker: Option<String>,
    /// The last line (agent utterance or moderator line).
    pub last_text: String,
    /// The last line named this agent (see [`mentions_name`]).
    pub addressed: bool,
    /// The last line was a question (see [`is_question`]).
    pub is_question: bool,
    /// Speeches of this agent in the session.
    pub own_speaks: u32,
    /// Speeches of all other agents together, and how many other agents there are.
    pub others_speaks: u32,
    pub others_count: u32,
    /// Rounds since this agent last spoke; `None`: never spoke.
    pub rounds_since_spoke: Option<u64>,
    pub phase: Phase,
}

/// The deterministic fallback intent.
///
/// - The agent that said the last line passes (it just had its say).
/// - Otherwise `score = base(phase) + 2·addressed + 1·question + 1·quiet − 1·dominant`,
///   with `base` = 2 in opening and free discussion, 3 in focused conflict, 1 in
///   convergence and closing; `quiet` = never spoke or silent for ≥ 2 rounds;
///   `dominant` = own speeches > mean of the others' + 1.
/// - `score ≤ 1` → pass; otherwise urgency `min(score, 5)`, as an `interrupt` when the
///   agent was addressed by name and the score is ≥ 4 (it was challenged directly), else
///   `speak`.
pub fn heuristic_intent(agent: &str, ctx: &HeuristicContext) -> Intent {
    if ctx.last_speaker.as_deref() == Some(agent) {
        return Intent::pass(agent);
    }
    let base: i32 = match ctx.phase {
        Phase::Opening | Phase::FreeDiscussion => 2,
        Phase::FocusedConflict => 3,
        Phase::Convergence | Phase::Closing => 1,
        Phase::NotStarted | Phase::Ended => 0,
    };
    let quiet = ctx.rounds_since_spoke.is_none_or(|r| r >= 2);
    // own > others / count + 1, in integers: own·count > others + count.
    let dominant = ctx.others_count > 0
        && u64::from(ctx.own_speaks) * u64::from(ctx.others_count)
            > u64::from(ctx.others_speaks) + u64::from(ctx.others_count);
    let score = base + 2 * i32::from(ctx.addressed) + i32::from(ctx.is_question) + i32::from(quiet)
        - i32::from(dominant);
    if score <= 1 {
        return Intent::pass(agent);
    }
    let urgency = score.min(5) as u8;
    if ctx.addressed && score >= 4 {
        Intent::interrupt(agent, urgency)
    } else {
        Intent::speak(agent, urgency)
    }
}

/// Whether `text` names `name` as a whole word, ignoring case (`Engineer,` matches
/// `engineer`; `engineering` does not). Names made of CJK characters match as
/// substrings, since those scripts do not separate words by spaces.
pub fn mentions_name(text: &str, name: &str) -> bool {
    let name = name.trim();
    if name.is_empty() {
        return false;
    }
    let hay = text.to_lowercase();
    let needle = name.to_lowercase();
    let mut start = 0;
    while let Some(pos) = hay[start..].find(&needle) {
        let begin = start + pos;
        let end = begin + needle.len();
        let before = hay[..begin].chars().next_back();
        let after = hay[end..].chars().next();
        let boundary = |c: Option<char>| c.is_none_or(|c| !is_word_char(c));
        let needle_first_cjk = needle.chars().next().is_some_and(is_cjk_letter);
        let needle_last_cjk = needle.chars().next_back().is_some_and(is_cjk_letter);
        if (needle_first_cjk || boundary(before)) && (needle_last_cjk || boundary(after)) {
            return true;
        }
        // Advance by one character to find overlapping occurrences.
        start = begin + hay[begin..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}
