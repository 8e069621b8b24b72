//! Dialogue moves per role, and how each is put to the model.

use crate::{PlanInput, Said, TurnPlan};

/// What a role does in a conversation, whatever its persona is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleKind {
    /// Explains and checks understanding (tutor, teacher).
    Teacher,
    /// Asks, tries and admits confusion (student, learner).
    Learner,
    /// Questions both sides and rules (judge).
    Judge,
    /// Argues one side (defense, prosecution, debater).
    Advocate,
    /// Brings in the others with questions (host, moderator).
    Host,
    /// Knows the subject (expert, economist, engineer, analyst, ...).
    Expert,
    /// Speaks from experience and asks plain questions (guest).
    Guest,
}

impl RoleKind {
    pub fn of(role: &str) -> Self {
        match role.trim().to_lowercase().as_str() {
            "tutor" | "teacher" | "instructor" => Self::Teacher,
            "student" | "learner" => Self::Learner,
            "judge" => Self::Judge,
            "defense" | "defence" | "prosecution" | "debater" | "advocate" => Self::Advocate,
            "host" | "moderator" | "chair" => Self::Host,
            "guest" | "audience" => Self::Guest,
            _ => Self::Expert,
        }
    }
}

/// A participant's contribution this turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Move {
    /// Do what the conductor asked.
    FollowInstruction,
    /// Answer the human who just spoke.
    AnswerHuman,
    /// Open the conversation on the current point.
    Open,
    /// Answer the question just asked, with one concrete example.
    AnswerQuestion,
    /// Say whether an attempt is right, then the next small step.
    ReactToAttempt,
    /// Ask a short question that checks understanding of the point.
    CheckUnderstanding,
    /// Ask one new question on the point.
    AskQuestion,
    /// Try a worked example with numbers.
    TryExample,
    /// Say what exactly is confusing about the last explanation.
    SayWhatConfuses,
    /// Make one argument not made yet.
    MakeArgument,
    /// Rebut the other side's last argument.
    Rebut,
    /// Ask a pointed question about the weakest step of the last argument.
    AskPointedQuestion,
    /// Rule on the exchange so far and move on to the point.
    Rule,
    /// Bring in someone with a question on the point.
    AskParticipant,
    /// Add one fact or example nobody mentioned, or disagree with a reason.
    AddPoint,
    /// Tell a short story from experience.
    ShareExperience,
}

impl Move {
    pub fn as_str(self) -> &'static str {
        match self {
            Move::FollowInstruction => "follow_instruction",
            Move::AnswerHuman => "answer_human",
            Move::Open => "open",
            Move::AnswerQuestion => "answer_question",
            Move::ReactToAttempt => "react_to_attempt",
            Move::CheckUnderstanding => "check_understanding",
            Move::AskQuestion => "ask_question",
            Move::TryExample => "try_example",
            Move::SayWhatConfuses => "say_what_confuses",
            Move::MakeArgument => "make_argument",
            Move::Rebut => "rebut",
            Move::AskPointedQuestion => "ask_pointed_question",
            Move::Rule => "rule",
            Move::AskParticipant => "ask_participant",
            Move::AddPoint => "add_point",
            Move::ShareExperience => "share_experience",
        }
    }

    /// The moves a role may make by itself (besides following an instruction and
    /// answering the human, which every role does).
    pub fn of_role(role: RoleKind) -> &'static [Move] {
        match role {
            RoleKind::Teacher => &[
                Move::Open,
                Move::AnswerQuestion,
                Move::ReactToAttempt,
                Move::CheckUnderstanding,
            ],
            RoleKind::Learner => &[
                Move::Open,
                Move::AnswerQuestion,
                Move::AskQuestion,
                Move::TryExample,
                Move::SayWhatConfuses,
            ],
            RoleKind::Judge => &[Move::Open, Move::AskPointedQuestion, Move::Rule],
            RoleKind::Advocate => &[
                Move::Open,
                Move::AnswerQuestion,
                Move::MakeArgument,
                Move::Rebut,
            ],
            RoleKind::Host => &[Move::Open, Move::AskParticipant],
            RoleKind::Expert => &[Move::Open, Move::AnswerQuestion, Move::AddPoint],
            RoleKind::Guest => &[
                Move::Open,
                Move::AnswerQuestion,
                Move::ShareExperience,
                Move::AskQuestion,
            ],
        }
    }
}

/// The role's move after `last` (not a human's), given how many lines `mine` it said.
pub(crate) fn choose(
    role: RoleKind,
    input: &PlanInput<'_>,
    last: Option<&Said>,
    mine: u64,
    addressee: Option<String>,
) -> (Move, Option<String>) {
    let Some(last) = last else {
        return (Move::Open, None);
    };
    let asked = text::words::line_asks(&last.text) && last.speaker != input.me.id;
    let from_other_side = last.speaker != input.me.id;
    // A rotation that differs per participant, so two learners don't mirror each other.
    let turn = input.question_id / 2 + input.me.id.bytes().map(u64::from).sum::<u64>();
    let action = match role {
        RoleKind::Teacher if asked => Move::AnswerQuestion,
        RoleKind::Teacher if from_other_side && mine.is_multiple_of(2) => Move::ReactToAttempt,
        RoleKind::Teacher => Move::CheckUnderstanding,
        RoleKind::Learner if asked => Move::AnswerQuestion,
        RoleKind::Learner => {
            [Move::AskQuestion, Move::TryExample, Move::SayWhatConfuses][(turn % 3) as usize]
        }
        RoleKind::Judge if mine % 3 == 2 => Move::Rule,
        RoleKind::Judge => Move::AskPointedQuestion,
        RoleKind::Advocate => match opponent_since_me(input) {
            Some(opponent) => return (Move::Rebut, Some(opponent)),
            None => Move::MakeArgument,
        },
        RoleKind::Host => Move::AskParticipant,
        RoleKind::Expert if asked => Move::AnswerQuestion,
        RoleKind::Expert => Move::AddPoint,
        RoleKind::Guest if asked => Move::AnswerQuestion,
        RoleKind::Guest if turn.is_multiple_of(2) => Move::ShareExperience,
        RoleKind::Guest => Move::AskQuestion,
    };
    let addressee = match action {
        Move::AskParticipant => least_recent_speaker(input),
        _ => addressee,
    };
    (action, addressee)
}

/// The other side's advocate who argued since this participant last spoke, if any.
fn opponent_since_me(input: &PlanInput<'_>) -> Option<String> {
    let since = input
        .lines
        .iter()
        .rposition(|l| l.speaker == input.me.id)
        .map_or(0, |i| i + 1);
    input.lines[since..]
        .iter()
        .rev()
        .find(|l| {
            !l.human
                && l.speaker != input.me.id
                && RoleKind::of(&role_of(input, &l.speaker)) == RoleKind::Advocate
        })
        .map(|l| crate::display_name(input, &l.speaker))
}

fn role_of(input: &PlanInput<'_>, id: &str) -> String {
    input
        .roster
        .iter()
        .find(|p| p.id == id)
        .map_or_else(|| id.to_owned(), |p| p.role.clone())
}

/// The roster participant (not this one) heard longest ago, or never: whom a host brings in.
fn least_recent_speaker(input: &PlanInput<'_>) -> Option<String> {
    input
        .roster
        .iter()
        .filter(|p| p.id != input.me.id)
        .min_by_key(|p| {
            input
                .lines
                .iter()
                .rposition(|l| l.speaker == p.id)
                .map_or(0, |i| i + 1)
        })
        .map(|p| p.name.clone())
}

/// How a conductor's instruction stands in a direction. A backend that puts the
/// instruction to the model as the user's message puts [`TASK_ASKED_APART`] in its place
/// (said twice, a small model recites it).
pub fn task_clause(instruction: &str) -> String {
    format!("Your task now (do not read it out): {}", instruction.trim())
}

/// What stands for [`task_clause`] when the instruction is the user's message.
pub const TASK_ASKED_APART: &str = "Do what the next message asks, yourself, in the first person.";

/// The move as an instruction in the second person.
pub(crate) fn wording(plan: &TurnPlan, instruction: Option<&str>) -> String {
    let point = &plan.point;
    let who = plan.addressee.as_deref().unwrap_or("the others");
    match plan.action {
        Move::FollowInstruction => task_clause(instruction.unwrap_or_default()),
        Move::AnswerHuman => format!(
            "Answer {who}'s question yourself, speaking to them as \"you\": start with their own words, then give one concrete example. Do not report or repeat the question."
        ),
        Move::Open => format!("Open the conversation about {point} with one short question."),
        Move::AnswerQuestion => {
            format!("Answer {who}'s question directly, with one concrete example about {point}.")
        }
        Move::ReactToAttempt => format!(
            "Tell {who} (speak to them as \"you\") whether they are right, then give the next small step about {point}."
        ),
        Move::CheckUnderstanding => {
            format!("Ask one short question that checks whether the students understand {point}.")
        }
        Move::AskQuestion => format!("Ask one new, short question about {point}."),
        Move::TryExample => {
            format!("Try a small worked example about {point}, with numbers, and say your answer.")
        }
        Move::SayWhatConfuses => {
            format!("Say which exact step about {point} still confuses you, and why.")
        }
        Move::MakeArgument => {
            format!("Make one new argument for your side about {point}, with a concrete reason.")
        }
        // Spoken to the addressee ("you"): worded about the argument, the model narrated
        // it ("The weakest step of Counsel for the defense's last argument is …").
        Move::Rebut => format!(
            "Answer {who} directly, speaking to them as \"you\": say what is wrong with their last argument and give one concrete reason against it."
        ),
        Move::AskPointedQuestion => format!(
            "Speaking as \"I\", say in one sentence which claim of {who} you doubt and why, then ask the other side one pointed question about it."
        ),
        Move::Rule => format!(
            "Say which side argued better so far and why, in one sentence, then ask both sides about {point}."
        ),
        Move::AskParticipant => format!("Ask {who} one short question about {point}."),
        Move::AddPoint => format!(
            "Add one fact or example about {point} that nobody mentioned yet, or disagree with {who} and say why."
        ),
        Move::ShareExperience => {
            format!("Tell one short, concrete story from your own work about {point}.")
        }
    }
}
