//! The moderator's built-in lines, so that it can speak without a model.
//!
//! Lines are templates with `{name}`, `{names}`, `{topic}` and `{moderator}`
//! placeholders, filled in a single pass (a topic that itself contains `{name}` stays
//! as written). Where several variants exist, the caller passes a counter and the
//! variant is `counter % len`, which keeps runs reproducible while avoiding the same
//! sentence twice in a row.

use serde::{Deserialize, Serialize};

use crate::scenario::PhaseType;

/// What a moderator line is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    Opening,
    Question,
    Call,
    Summary,
    Transition,
    Warning,
    Closing,
}

impl LineKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LineKind::Opening => "opening",
            LineKind::Question => "question",
            LineKind::Call => "call",
            LineKind::Summary => "summary",
            LineKind::Transition => "transition",
            LineKind::Warning => "warning",
            LineKind::Closing => "closing",
        }
    }
}

/// Fills `{key}` placeholders from `values` in one pass; unknown placeholders stay.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let key = &after[..close];
                match values.iter().find(|(k, _)| *k == key) {
                    Some((_, v)) => out.push_str(v),
                    None => {
                        out.push('{');
                        out.push_str(key);
                        out.push('}');
                    }
                }
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// "A", "A and B", "A, B and C".
pub fn join_names<S: AsRef<str>>(names: &[S]) -> String {
    match names {
        [] => String::new(),
        [one] => one.as_ref().to_owned(),
        [init @ .., last] => {
            let head: Vec<&str> = init.iter().map(AsRef::as_ref).collect();
            format!("{} and {}", head.join(", "), last.as_ref())
        }
    }
}

fn pick<'a>(variants: &[&'a str], counter: u64) -> &'a str {
    let len = variants.len().max(1) as u64;
    variants
        .get((counter % len) as usize)
        .copied()
        .unwrap_or("")
}

/// Said when the session starts (switch into the first phase). The topic may be a
/// question ("Should cities ban cars?") or a subject ("car-free city centres").
pub fn opening(topic: &str, moderator: &str, names: &[&str], first: PhaseType) -> String {
    let next = match first {
        PhaseType::Opening => "Let's begin with a short opening statement from each of you.",
        PhaseType::Closing => {
            "We only have time for brief statements, so let's go straight to them."
        }
        _ => "The floor is open.",
    };
    let topic = topic.trim();
    let (intro, end) = if crate::intent::is_question(topic) {
        ("Our question today", "")
    } else if topic.ends_with(['.', '!', '。', '！']) {
        ("Our topic today", "")
    } else {
        ("Our topic today", ".")
    };
    fill(
        "Welcome to our roundtable. I'm {moderator}, and with me are {names}. {intro}: {topic}{end} {next}",
        &[
            ("moderator", moderator),
            ("names", &join_names(names)),
            ("intro", intro),
            ("topic", topic),
            ("end", end),
            ("next", next),
        ],
    )
}

/// Announces the switch into `to`.
pub fn transition(to: PhaseType, topic: &str, is_rollback: bool) -> String {
    let template = match (to, is_rollback) {
        (PhaseType::FreeDiscussion, true) => {
            "It sounds like this is far from settled, so let's open the floor again."
        }
        (PhaseType::Opening, _) => "Let's hear a short statement from each of you.",
        (PhaseType::FreeDiscussion, false) => {
            "Thank you all. The floor is now open: respond to each other freely."
        }
        (PhaseType::FocusedConflict, _) => {
            "Let's focus on where you disagree most. Be direct, and keep it short."
        }
        (PhaseType::Convergence, _) => {
            "Let's look for common ground. Where do your positions meet?"
        }
        (PhaseType::Closing, _) => {
            "We are nearly out of time. A brief closing statement from each of you, please."
        }
    };
    fill(template, &[("topic", topic)])
}

/// The moderator gives the floor to `name`, who did not ask for it; `first`: nobody
/// has had the floor in this phase yet.
pub fn call(phase: PhaseType, name: &str, first: bool, counter: u64) -> String {
    let variants: &[&str] = match phase {
        PhaseType::Opening if first => &["{name}, would you start us off?"],
        PhaseType::Opening => &[
            "{name}, your opening statement, please.",
            "{name}, over to you.",
        ],
        PhaseType::Closing => &[
            "{name}, your closing statement, please.",
            "{name}, your final words?",
        ],
        PhaseType::Convergence => &[
            "{name}, where do you see common ground?",
            "{name}, what could you agree to?",
        ],
        PhaseType::FreeDiscussion | PhaseType::FocusedConflict => &[
            "{name}, what is your view?",
            "{name}, how do you see it?",
            "{name}, we haven't heard from you in a while. What do you think?",
        ],
    };
    fill(pick(variants, counter), &[("name", name)])
}

/// A guiding question to everyone; `custom` (from the scenario) replaces the built-ins.
pub fn question(phase: PhaseType, topic: &str, counter: u64, custom: &[String]) -> String {
    if !custom.is_empty() {
        let i = (counter % custom.len() as u64) as usize;
        return fill(&custom[i], &[("topic", topic)]);
    }
    let variants: &[&str] = match phase {
        PhaseType::Opening | PhaseType::Closing => {
            &["What is the one point you want us to remember?"]
        }
        PhaseType::FreeDiscussion => &[
            "What is the strongest argument that nobody has made yet?",
            "Who would be affected most, and how?",
            "What would it take to change your mind?",
        ],
        PhaseType::FocusedConflict => &[
            "Where exactly do you disagree, and why?",
            "What evidence would settle this disagreement?",
        ],
        PhaseType::Convergence => &[
            "What is one point you could all agree on?",
            "What compromise could work for everyone?",
        ],
    };
    fill(pick(variants, counter), &[("topic", topic)])
}

/// For an agent that keeps asking for the floor beyond the consecutive-speech limit.
pub fn warning(name: &str, counter: u64) -> String {
    let variants = [
        "{name}, thank you, but you have had the floor a lot. Let's hear from the others.",
        "{name}, please hold on for a moment and give the others a chance.",
    ];
    fill(pick(&variants, counter), &[("name", name)])
}

/// The last line of the session.
pub fn closing(names: &[&str]) -> String {
    fill(
        "That brings our roundtable to a close. Thank you to {names}, and to all of you for listening.",
        &[("names", &join_names(names))],
    )
}

/// `text` with its first letter in upper case ("the engineer, ..." → "The engineer, ...").
pub fn capitalize_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The instruction handed to the agent with the floor. `custom` (the phase's
/// `instruction`) replaces the built-in line; an interruption or a call by name is
/// prefixed so the agent can say so.
pub fn instruction(
    phase: PhaseType,
    topic: &str,
    custom: Option<&str>,
    interrupting: Option<&str>,
    called: bool,
) -> String {
    let body = match custom {
        Some(c) => fill(c, &[("topic", topic)]),
        None => fill(
            match phase {
                PhaseType::Opening => {
                    "Give a brief opening statement of your position. The topic: {topic}"
                }
                PhaseType::FreeDiscussion => "Respond to the discussion in a few sentences.",
                PhaseType::FocusedConflict => {
                    "Address the main disagreement directly, in a few sentences."
                }
                PhaseType::Convergence => {
                    "Look for common ground with the others, in a few sentences."
                }
                PhaseType::Closing => "Give a brief closing statement.",
            },
            &[("topic", topic)],
        ),
    };
    match (interrupting, called) {
        (Some(prev), _) => format!("You are cutting in on {prev}: be brief and direct. {body}"),
        (None, true) => format!("The moderator has called on you. {body}"),
        (None, false) => body,
    }
}
