//! What a participant contributes next, decided without a model and without a clock.
//!
//! A small language model handed a transcript and "reply" repeats, thanks or revises the
//! last line. Given a *move* instead ("ask one new question about the power rule", "rebut
//! the prosecution's last argument"), it contributes something new. [`plan`] picks the
//! move from the participant's role, the last lines and the [`Agenda`]; [`direction`]
//! words it as a director's instruction in the second person. The words spoken are always
//! the model's: a move is never a template line.
//!
//! The agenda advances with the turn's question id, which every participant of a session
//! shares, so all bridges agree on the current point without talking to each other.

mod agenda;
mod moves;

pub use agenda::{Agenda, AgendaError};
pub use moves::{Move, RoleKind, TASK_ASKED_APART, task_clause};

/// A participant as the others know it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Participant {
    /// The policy name (`tutor`, `student1`).
    pub id: String,
    /// How the others address it (`Ms. Rivera`).
    pub name: String,
    /// Its role (`tutor`, `student`, `judge`, ...).
    pub role: String,
}

impl Participant {
    pub fn new(id: &str, name: &str, role: &str) -> Self {
        Self {
            id: id.to_owned(),
            name: name.to_owned(),
            role: role.to_owned(),
        }
    }
}

/// One line of the conversation so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    pub speaker: String,
    pub text: String,
    pub human: bool,
}

impl Said {
    pub fn new(speaker: &str, text: &str, human: bool) -> Self {
        Self {
            speaker: speaker.to_owned(),
            text: text.to_owned(),
            human,
        }
    }
}

/// Everything a plan depends on.
#[derive(Debug, Clone, Copy)]
pub struct PlanInput<'a> {
    pub me: &'a Participant,
    /// The other participants known by name (may be empty: ids are used then).
    pub roster: &'a [Participant],
    /// The conversation so far, oldest first.
    pub lines: &'a [Said],
    pub agenda: &'a Agenda,
    /// The turn's question id (ids grow through a session).
    pub question_id: u64,
    /// What a conductor (moderator, auction, rehearsal) asked of this turn.
    pub instruction: Option<&'a str>,
}

/// The move of one turn.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TurnPlan {
    pub action: Move,
    /// The agenda point the move is about.
    pub point: String,
    /// Whom the move answers or addresses, as the others call them.
    pub addressee: Option<String>,
}

impl TurnPlan {
    /// Whether this turn is to ask a question: its move asks one, or the conductor's
    /// instruction ends by asking for one ("… Ask the presenter one short question.").
    pub fn asks(&self, instruction: Option<&str>) -> bool {
        match self.action {
            Move::Open | Move::AskQuestion | Move::CheckUnderstanding | Move::AskParticipant => {
                true
            }
            Move::FollowInstruction => instruction.is_some_and(asks_for_a_question),
            _ => false,
        }
    }
}

/// An instruction whose last sentence tells to ask something ("Ask the presenter …").
fn asks_for_a_question(instruction: &str) -> bool {
    let last = instruction
        .trim()
        .trim_end_matches(['.', '!'])
        .rsplit(['.', '!', '?', '\n'])
        .next()
        .unwrap_or_default()
        .trim();
    // A prepared question to say as it is asks, whatever its wording.
    let quoted = last.ends_with('\u{201d}') || instruction.trim_end().ends_with('\u{201d}');
    !quoted
        && last
            .split_whitespace()
            .next()
            .is_some_and(|w| w.eq_ignore_ascii_case("ask"))
}

/// How many turns an agenda point lasts before the next one.
pub const TURNS_PER_POINT: u64 = 8;

/// The move for this turn. Rules, in order: a conductor's instruction is followed; a human
/// who spoke last is answered; otherwise the role decides from the last line.
pub fn plan(input: &PlanInput<'_>) -> TurnPlan {
    let point = input.agenda.point(input.question_id).to_owned();
    let last = input.lines.last();
    let addressee = last
        .filter(|l| l.speaker != input.me.id)
        .map(|l| display_name(input, &l.speaker));
    if input.instruction.is_some_and(|i| !i.trim().is_empty()) {
        return TurnPlan {
            action: Move::FollowInstruction,
            point,
            addressee,
        };
    }
    if let Some(human) = last.filter(|l| l.human) {
        return TurnPlan {
            action: Move::AnswerHuman,
            point,
            addressee: Some(human_name(input, &human.speaker)),
        };
    }
    let role = RoleKind::of(&input.me.role);
    let mine = input
        .lines
        .iter()
        .filter(|l| l.speaker == input.me.id)
        .count() as u64;
    let (action, addressee) = moves::choose(role, input, last, mine, addressee);
    TurnPlan {
        action,
        point,
        addressee,
    }
}

/// How the others call `id`: its roster name, else the id itself.
fn display_name(input: &PlanInput<'_>, id: &str) -> String {
    if id == input.me.id {
        return input.me.name.clone();
    }
    input
        .roster
        .iter()
        .find(|p| p.id == id)
        .map_or_else(|| id.to_owned(), |p| p.name.clone())
}

/// How the prompt calls a human: its roster name, else "the human".
fn human_name(input: &PlanInput<'_>, id: &str) -> String {
    input
        .roster
        .iter()
        .find(|p| p.id == id)
        .map_or_else(|| "the human".to_owned(), |p| p.name.clone())
}

/// The director's instruction for `plan`: the line it reacts to, whose turn it is and its
/// move (who else is there and the rules every line keeps are the [`standing`], which
/// opens the prompt). A small model follows what stands right before its answer far
/// better than what stands in a long transcript, so the last line is quoted here
/// (shortened); the guard keeps the answer from repeating it.
pub fn direction(input: &PlanInput<'_>, plan: &TurnPlan) -> String {
    let me = input.me;
    let mut out = String::new();
    // A human's question is put to the model as it is (the prompt's user message, or
    // the line right before this direction): quoted again, a small model reports it
    // ("The human just asked: …") instead of answering it.
    // A conductor's instruction that already holds the last line (a moderator's call, the
    // answer to probe) needs no quote of it either, nor one that quotes a later line
    // itself (the auction's, of the line still being heard): two quotes in a row, a small
    // model wrote a third ("Hawk just said: …") as its reply, refused as an echo.
    let quote = match plan.action {
        Move::AnswerHuman => false,
        Move::FollowInstruction => !input.instruction.is_some_and(|instruction| {
            instruction.contains(QUOTE_MARK)
                || input
                    .lines
                    .last()
                    .is_some_and(|last| holds_the_start_of(instruction, &last.text))
        }),
        _ => true,
    };
    if let Some(last) = input.lines.last().filter(|l| quote && l.speaker != me.id) {
        let who = if last.human {
            human_name(input, &last.speaker)
        } else {
            display_name(input, &last.speaker)
        };
        out.push_str(&format!(
            "{who} {QUOTE_MARK} “{}”\n",
            shorten(&last.text, QUOTED_WORDS)
        ));
    }
    out.push_str(&format!("Your turn, {}. ", me.name));
    out.push_str(&moves::wording(plan, input.instruction));
    out
}

/// What holds for every turn of `me` among `roster`: who it is, who else takes part, how
/// it speaks. The same from turn to turn, it opens the prompt, before the conversation,
/// where a model that keeps a cache has it read already; a turn's [`direction`] then
/// holds only what changes.
pub fn standing(me: &Participant, roster: &[Participant]) -> String {
    let mut out = format!("You are {} ({}", me.name, me.role);
    let others: Vec<String> = roster
        .iter()
        .filter(|p| p.id != me.id)
        .map(|p| format!("{} the {}", p.name, p.role))
        .collect();
    if !others.is_empty() {
        out.push_str(&format!("; with you: {}", join_names(&others)));
    }
    out.push_str(&format!(
        "). Speak as {} in one or two short spoken sentences, in your own words, with something new. No greeting, no thanks, do not repeat what was already said.",
        me.name
    ));
    out
}

/// Whether `text`'s first words (up to six) stand in `instruction`, case and
/// punctuation aside.
fn holds_the_start_of(instruction: &str, text: &str) -> bool {
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let start: Vec<String> = words(text).into_iter().take(6).collect();
    !start.is_empty() && words(instruction).windows(start.len()).any(|w| w == start)
}

/// What stands between a speaker's name and the words of theirs a direction quotes
/// (the conductors' instructions quote the same way).
pub const QUOTE_MARK: &str = "just said:";

/// How many words of the last line a direction quotes.
const QUOTED_WORDS: usize = 30;

/// The first `max` words of `text`, with "…" when cut.
fn shorten(text: &str, max: usize) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() <= max {
        return words.join(" ");
    }
    format!("{} …", words[..max].join(" "))
}

fn join_names(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests;
