//! The moderator's built-in lines, so that it can speak without a model.
//!
//! Lines are templates with `{name}`, `{names}`, `{topic}` and `{moderator}`
//! placeholders, filled in a single pass (a topic that itself contains `{name}` stays
//! as written). Where several variants exist, the caller passes a counter and the
//! variant is `counter % len`, which keeps runs reproducible while avoiding the same
//! sentence twice in a row.

use serde::{Deserialize, Serialize};

use crate::scenario::PhaseType;

/// The language of the moderator's own lines and of the instructions it hands out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// English.
    #[default]
    En,
    /// Mandarin Chinese (simplified characters).
    Zh,
}

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

/// "A", "A and B", "A, B and C"; in Chinese "A、B和C".
pub fn join_names_in<S: AsRef<str>>(lang: Language, names: &[S]) -> String {
    match lang {
        Language::En => join_names(names),
        Language::Zh => match names {
            [] => String::new(),
            [one] => one.as_ref().to_owned(),
            [init @ .., last] => {
                let head: Vec<&str> = init.iter().map(AsRef::as_ref).collect();
                format!("{}和{}", head.join("、"), last.as_ref())
            }
        },
    }
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
pub fn opening(
    lang: Language,
    topic: &str,
    moderator: &str,
    names: &[&str],
    first: PhaseType,
) -> String {
    let topic = topic.trim();
    if lang == Language::Zh {
        let next = match first {
            PhaseType::Opening => "请每位嘉宾先做一个简短的开场陈述。",
            PhaseType::Closing => "时间有限，我们直接进入简短的总结陈述。",
            _ => "现在开始自由发言。",
        };
        let end = if topic.ends_with(['。', '！', '？', '.', '!', '?']) {
            ""
        } else {
            "。"
        };
        return fill(
            "欢迎来到我们的圆桌讨论。我是主持人{moderator}，今天的嘉宾是{names}。今天的话题：{topic}{end}{next}",
            &[
                ("moderator", moderator),
                ("names", &join_names_in(lang, names)),
                ("topic", topic),
                ("end", end),
                ("next", next),
            ],
        );
    }
    let next = match first {
        PhaseType::Opening => "Let's begin with a short opening statement from each of you.",
        PhaseType::Closing => {
            "We only have time for brief statements, so let's go straight to them."
        }
        _ => "The floor is open.",
    };
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
pub fn transition(lang: Language, to: PhaseType, topic: &str, is_rollback: bool) -> String {
    if lang == Language::Zh {
        let line = match (to, is_rollback) {
            (PhaseType::FreeDiscussion, true) => "看来这个问题远未达成一致，我们重新开放讨论。",
            (PhaseType::Opening, _) => "请每位嘉宾做一个简短的陈述。",
            (PhaseType::FreeDiscussion, false) => {
                "谢谢各位。现在进入自由讨论，请直接回应彼此的观点。"
            }
            (PhaseType::FocusedConflict, _) => "我们聚焦在分歧最大的地方。请直接一点，简短一点。",
            (PhaseType::Convergence, _) => "我们来寻找共识。各位的立场在哪里可以交汇？",
            (PhaseType::Closing, _) => "时间快到了。请每位嘉宾做一个简短的总结陈述。",
        };
        return line.to_owned();
    }
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
pub fn call(lang: Language, phase: PhaseType, name: &str, first: bool, counter: u64) -> String {
    if lang == Language::Zh {
        let variants: &[&str] = match phase {
            PhaseType::Opening if first => &["{name}，请您先开始吧。"],
            PhaseType::Opening => &["{name}，请做您的开场陈述。", "{name}，轮到您了。"],
            PhaseType::Closing => &["{name}，请做您的总结陈述。", "{name}，您最后想说什么？"],
            PhaseType::Convergence => &["{name}，您认为共识在哪里？", "{name}，您可以接受哪一点？"],
            PhaseType::FreeDiscussion | PhaseType::FocusedConflict => &[
                "{name}，您怎么看？",
                "{name}，您的观点是什么？",
                "{name}，我们有一段时间没听到您的声音了，您怎么想？",
            ],
        };
        return fill(pick(variants, counter), &[("name", name)]);
    }
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
pub fn question(
    lang: Language,
    phase: PhaseType,
    topic: &str,
    counter: u64,
    custom: &[String],
) -> String {
    if !custom.is_empty() {
        let i = (counter % custom.len() as u64) as usize;
        return fill(&custom[i], &[("topic", topic)]);
    }
    if lang == Language::Zh {
        let variants: &[&str] = match phase {
            PhaseType::Opening | PhaseType::Closing => &["您最希望大家记住的一点是什么？"],
            PhaseType::FreeDiscussion => &[
                "还有哪个最有力的论点没有人提到？",
                "谁受到的影响最大？会怎样受影响？",
                "什么能让您改变看法？",
            ],
            PhaseType::FocusedConflict => &[
                "你们到底在哪里有分歧？为什么？",
                "什么样的证据能解决这个分歧？",
            ],
            PhaseType::Convergence => &[
                "有哪一点是大家都能同意的？",
                "什么样的折中方案对所有人都可行？",
            ],
        };
        return pick(variants, counter).to_owned();
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
pub fn warning(lang: Language, name: &str, counter: u64) -> String {
    if lang == Language::Zh {
        let variants = [
            "{name}，谢谢，您已经发言很多了，我们听听其他人的意见。",
            "{name}，请稍等一下，给其他人一个机会。",
        ];
        return fill(pick(&variants, counter), &[("name", name)]);
    }
    let variants = [
        "{name}, thank you, but you have had the floor a lot. Let's hear from the others.",
        "{name}, please hold on for a moment and give the others a chance.",
    ];
    fill(pick(&variants, counter), &[("name", name)])
}

/// The last line of the session.
pub fn closing(lang: Language, names: &[&str]) -> String {
    if lang == Language::Zh {
        return fill(
            "今天的圆桌讨论到此结束。感谢{names}，也感谢各位的收听。",
            &[("names", &join_names_in(lang, names))],
        );
    }
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
    lang: Language,
    phase: PhaseType,
    topic: &str,
    custom: Option<&str>,
    interrupting: Option<&str>,
    called: bool,
) -> String {
    if lang == Language::Zh {
        let body = match custom {
            Some(c) => fill(c, &[("topic", topic)]),
            None => fill(
                match phase {
                    PhaseType::Opening => "请用中文简短陈述你的立场。话题：{topic}",
                    PhaseType::FreeDiscussion => "请用中文回应讨论，说几句即可。",
                    PhaseType::FocusedConflict => "请用中文直接回应主要分歧，说几句即可。",
                    PhaseType::Convergence => "请用中文寻找与他人的共识，说几句即可。",
                    PhaseType::Closing => "请用中文做一个简短的总结陈述。",
                },
                &[("topic", topic)],
            ),
        };
        return match (interrupting, called) {
            (Some(prev), _) => format!("你正在打断{prev}：请简短直接。{body}"),
            (None, true) => format!("主持人点名请你发言。{body}"),
            (None, false) => body,
        };
    }
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
