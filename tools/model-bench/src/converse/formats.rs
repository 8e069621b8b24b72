//! The shipped dataflows as `converse` plays them: each one's participants, topic, turn
//! order and human lines, and the scripted lines of the formats a conductor leads.

use eyre::bail;
/// A shipped dataflow's participants, topic and turn order (a simple stand-in for its
/// policy), and when the human speaks.
pub(super) struct Format {
    pub(super) agenda: &'static str,
    pub(super) participants: &'static [&'static str],
    /// Who speaks at turn `i` (0-based), given who spoke last.
    pub(super) next: fn(usize, &str) -> &'static str,
    /// The human's lines, by the turn they come after.
    pub(super) human: &'static [(usize, &'static str)],
    /// A conductor's session instead of `next` and `human`: scripted lines and calls with
    /// instructions, as the moderator nodes send them (steps repeat when turns exceed
    /// them).
    pub(super) script: &'static [Step],
    /// The auction's way: each turn is asked while the line before it still sounds, with
    /// the auction's segment instruction quoting that line; the participants hear it
    /// (as an utterance) only once the turn is under way.
    pub(super) quotes_the_line_heard: bool,
}

/// One step of a conducted session.
pub(super) enum Step {
    /// A scripted speaker (a moderator, the presenter) says a line; `human` as recorded.
    Say {
        speaker: &'static str,
        text: &'static str,
        human: bool,
    },
    /// A participant's turn with the conductor's instruction.
    Call {
        speaker: &'static str,
        instruction: &'static str,
    },
}

const fn say(speaker: &'static str, text: &'static str) -> Step {
    Step::Say {
        speaker,
        text,
        human: false,
    }
}

const fn present(text: &'static str) -> Step {
    Step::Say {
        speaker: "presenter",
        text,
        human: true,
    }
}

const fn call(speaker: &'static str, instruction: &'static str) -> Step {
    Step::Call {
        speaker,
        instruction,
    }
}

/// The roundtable's opening and a free round, in the words of the moderator's phrase
/// library and the scenario (`dataflows/scenarios/roundtable.yml`).
const ROUNDTABLE: &[Step] = &[
    say(
        "moderator",
        "Welcome to our roundtable. I'm Alex, and with me are Dr. Nadia Okafor, Tomás Lindqvist and Prof. Amara Singh. Our question today: Should cities ban private cars from their centres? Let's begin with a short opening statement from each of you.",
    ),
    say("moderator", "Dr. Nadia Okafor, would you start us off?"),
    call(
        "economist",
        "The moderator said: Dr. Nadia Okafor, would you start us off?\nWhat is your own position on this question: Should cities ban private cars from their centres? Say it in two sentences, with one reason from your own work.",
    ),
    say(
        "moderator",
        "Tomás Lindqvist, your opening statement, please.",
    ),
    call(
        "engineer",
        "The moderator said: Tomás Lindqvist, your opening statement, please.\nWhat is your own position on this question: Should cities ban private cars from their centres? Say it in two sentences, with one reason from your own work.",
    ),
    say("moderator", "Prof. Amara Singh, over to you."),
    call(
        "ethicist",
        "The moderator said: Prof. Amara Singh, over to you.\nWhat is your own position on this question: Should cities ban private cars from their centres? Say it in two sentences, with one reason from your own work.",
    ),
    say(
        "moderator",
        "Thank you all. The floor is now open: respond to each other freely.",
    ),
    call(
        "economist",
        "Do you agree or disagree with the last speaker? Say which, and give one reason from your own work, in two sentences.",
    ),
    call(
        "engineer",
        "Do you agree or disagree with the last speaker? Say which, and give one reason from your own work, in two sentences.",
    ),
    call(
        "ethicist",
        "Do you agree or disagree with the last speaker? Say which, and give one reason from your own work, in two sentences.",
    ),
    say(
        "moderator",
        "Let's focus on where you disagree most. Be direct, and keep it short.",
    ),
    call(
        "engineer",
        "Where do you disagree most with the others? Say it directly, with one reason, in two sentences.",
    ),
    call(
        "economist",
        "Where do you disagree most with the others? Say it directly, with one reason, in two sentences.",
    ),
    say(
        "moderator",
        "Let's look for common ground. Where do your positions meet?",
    ),
    call(
        "ethicist",
        "Where do you agree with the others? Name one step you could all accept, in two sentences.",
    ),
];

/// The pitch rehearsal's first Q&A exchanges, in the rehearsal moderator's words
/// (`crates/rehearsal-core/src/messages.rs`) on the shipped deck.
const REHEARSAL: &[Step] = &[
    present("Good morning. We are Acme Robotics, and we build picking robots."),
    present(
        "Manual picking is more than half of labour cost, and turnover is above forty percent.",
    ),
    say(
        "moderator",
        "Let me pause you there for a moment, because the panel has been listening closely. Marcus Webb, I believe you have a question about The Problem.",
    ),
    call(
        "skeptic",
        "The slide The Problem says: Mid-size warehouses lose margin to manual picking: picking is 55% of labour cost, and staff turnover runs above 40% a year. Peak-season hiring is slow and expensive.\nAsk the presenter one sharp question that names one of its figures or claims and asks what proves it, in one sentence.",
    ),
    present("Picking is 55 percent of labour cost across our six pilot sites."),
    call(
        "skeptic",
        "The presenter answered: Picking is 55 percent of labour cost across our six pilot sites.\nAsk the presenter one short follow-up question that names a figure or a claim of this answer and tests it.",
    ),
    present("The turnover figure comes from public labour statistics for warehouses."),
    say("moderator", "Priya Sharma, you wanted to build on that?"),
    call(
        "analyst",
        "Ask the presenter one short question of your own that builds on the exchange about The Problem.",
    ),
    present("Our robots cut the picking labour cost by half in the pilots."),
    say(
        "moderator",
        "Thank you both. Let's get back to the presentation; please carry on.",
    ),
    present("The automation market is forty billion dollars and growing fast."),
    say(
        "moderator",
        "James O'Brien, I believe you have a question about Market Size.",
    ),
    call(
        "contrarian",
        "The slide Market Size says: The warehouse automation market is $40B and growing 14% a year. Our survey of 120 operators shows 70% plan to automate picking within three years.\nAsk the presenter one sharp question that names one of its figures or claims and asks what proves it, in one sentence.",
    ),
    present("Our survey covered one hundred and twenty operators in three countries."),
    call(
        "contrarian",
        "The presenter answered: Our survey covered one hundred and twenty operators in three countries.\nAsk the presenter one short follow-up question that names a figure or a claim of this answer and tests it.",
    ),
];

pub(super) fn format(name: &str) -> eyre::Result<Format> {
    Ok(match name {
        "study" => Format {
            agenda: "dataflows/agendas/voice-chat.yml",
            participants: &["tutor", "student1", "student2"],
            // The tutor answers after every student; the students alternate.
            next: |i, last| match last {
                "tutor" if (i / 2) % 2 == 0 => "student1",
                "tutor" => "student2",
                _ => "tutor",
            },
            human: &[
                (5, "Can you show me a derivative with actual numbers?"),
                (14, "Why is the slope of a curve different at every point?"),
                (23, "Where would I use derivatives outside of class?"),
            ],
            script: &[],
            quotes_the_line_heard: false,
        },
        "debate" => Format {
            agenda: "dataflows/agendas/debate.yml",
            participants: &["judge", "defense", "prosecution"],
            next: |i, last| match last {
                "judge" if (i / 2) % 2 == 0 => "defense",
                "judge" => "prosecution",
                _ => "judge",
            },
            human: &[],
            script: &[],
            quotes_the_line_heard: false,
        },
        "panel" => Format {
            agenda: "dataflows/agendas/panel.yml",
            participants: &["host", "expert1", "expert2", "guest"],
            next: |i, _| ["host", "expert1", "host", "expert2", "guest"][i % 5],
            human: &[],
            script: &[],
            quotes_the_line_heard: false,
        },
        "roundtable" => Format {
            agenda: "dataflows/agendas/roundtable.yml",
            participants: &["economist", "engineer", "ethicist"],
            next: |_, _| "moderator",
            human: &[],
            script: ROUNDTABLE,
            quotes_the_line_heard: false,
        },
        "rehearsal" => Format {
            agenda: "dataflows/agendas/rehearsal.yml",
            participants: &["skeptic", "analyst", "contrarian"],
            next: |_, _| "moderator",
            human: &[],
            script: REHEARSAL,
            quotes_the_line_heard: false,
        },
        "auction" => Format {
            agenda: "dataflows/agendas/auction-debate.yml",
            participants: &["hawk", "dove", "owl"],
            // A stand-in for the bids: each speaks twice in a row now and then.
            next: |i, _| ["hawk", "hawk", "dove", "owl", "dove", "hawk", "owl", "owl"][i % 8],
            human: &[],
            script: &[],
            quotes_the_line_heard: true,
        },
        other => {
            bail!("unknown format {other:?} (study, debate, panel, roundtable, rehearsal, auction)")
        }
    })
}
