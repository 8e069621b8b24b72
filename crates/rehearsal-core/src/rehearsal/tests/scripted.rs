//! An offline rehearsal: the sample deck (a title slide and four content slides),
//! section-breaks mode, moderate intensity, scripted panelists and presenter.

use std::collections::VecDeque;

use super::driver::*;
use crate::{
    Action, CandidatePurpose, Event, Instruction, Outcome, PanelConfig, Phase, PhraseLibrary,
    PileOnStatus, Speaker, Trigger,
};

struct Panel {
    questions: Vec<(&'static str, VecDeque<&'static str>)>,
    answers: VecDeque<&'static str>,
    /// Pile-on candidate offered (once) when asked during an exchange on this slide.
    pile_on: Option<(usize, &'static str, &'static str)>,
}

impl Panel {
    fn question(&mut self, agent: &str) -> &'static str {
        let list = &mut self
            .questions
            .iter_mut()
            .find(|(a, _)| *a == agent)
            .unwrap()
            .1;
        list.pop_front()
            .unwrap_or_else(|| panic!("no scripted question left for {agent}"))
    }
}

/// Carries out actions the way the nodes would: lines play, agents speak, the presenter
/// answers, panelists offer pile-on candidates.
fn pump(d: &mut Driver, out: Vec<Action>, panel: &mut Panel) {
    let mut pending: VecDeque<Action> = out.into();
    while let Some(action) = pending.pop_front() {
        match action {
            Action::Say { line_id, .. } => {
                d.now += 3_000;
                pending.extend(d.send(Event::ModeratorLineFinished { line_id }));
            }
            Action::CallAgent {
                agent,
                question_id,
                instruction,
                candidate,
                ..
            } => {
                let text = match (instruction, candidate) {
                    // A prepared candidate is asked as prepared.
                    (Instruction::AskQuestion | Instruction::PileOn, Some(c)) => c,
                    _ => panel.question(&agent).to_owned(),
                };
                d.now += 2_000;
                pending.extend(d.send(Event::AgentTurnFinished {
                    agent,
                    question_id,
                    text,
                }));
                let answer = panel.answers.pop_front().expect("scripted answer");
                d.now += 6_000;
                pending.extend(d.send(Event::PresenterAnswerFinished {
                    text: answer.into(),
                }));
            }
            Action::RequestCandidates {
                purpose: CandidatePurpose::PileOn,
                slide,
                ..
            } => {
                if let Some((s, agent, text)) = panel.pile_on
                    && s == slide
                {
                    // Offered once.
                    panel.pile_on = None;
                    pending.extend(d.candidate(agent, text, 0.8));
                }
            }
            _ => {}
        }
    }
}

fn present(d: &mut Driver, lines: &[&str]) {
    for l in lines {
        d.speech(l);
        d.now += 500;
    }
}

#[test]
fn scripted_rehearsal_with_section_breaks() {
    let config = PanelConfig::from_yaml(PANEL).unwrap();
    assert_eq!(config.mode, crate::InteractionMode::SectionBreaks);
    let (phrases, warnings) = PhraseLibrary::parse(PHRASES);
    assert!(warnings.is_empty(), "{warnings:?}");
    let paced = crate::rehearsal::Config { paced: true };
    let core = crate::Rehearsal::new(config, crate::Deck::parse(DECK), phrases, paced).unwrap();
    assert_eq!(core.deck().len(), 5);
    let mut d = Driver {
        core,
        now: 0,
        log: Vec::new(),
    };
    let mut panel = Panel {
        questions: vec![
            (
                "skeptic",
                VecDeque::from([
                    "What gross margin do you reach per robot at scale?",
                    "How does maintenance change that margin?",
                    "Who pays when a robot fails at night?",
                    "What is your monthly burn rate runway?",
                    "Then what runway do you have left?",
                ]),
            ),
            (
                "analyst",
                VecDeque::from([
                    "How large was your operator survey sample?",
                    "How many of the surveyed operators have budget?",
                ]),
            ),
            (
                "contrarian",
                VecDeque::from([
                    "Why won't incumbents copy your grasping model?",
                    "Why does deployment time protect you?",
                    "Why won't incumbents move down to mid-size warehouses?",
                ]),
            ),
        ],
        answers: VecDeque::from([
            // Break after slide 1: the skeptic, three turns.
            "About 62 percent at fifty robots.",
            "Maintenance stays under eight percent of revenue.",
            "Our technicians cover nights under contract.",
            // Second exchange of that break: the analyst's prepared question.
            "Turnover comes from public labour statistics. Let's move on.",
            // Break after slide 2: the analyst; the answer goes in circles.
            "We surveyed 120 operators across 14 states.",
            "We surveyed 120 operators across 14 states, as I said.",
            // The contrarian's pile-on.
            "They cover the mid-size segment we target.",
            // Break after slide 3: the skeptic; a dodge, then a request to move on.
            "Our team is passionate and experienced.",
            "Next question, please.",
            // Open Q&A on slide 4: the contrarian, three turns.
            "Our grasping model needs four million picks to train.",
            "Deployment takes three weeks, not months.",
            "Incumbents focus on the largest warehouses.",
        ]),
        pile_on: Some((
            2,
            "contrarian",
            "Do 120 surveyed operators really represent the market?",
        )),
    };

    present(&mut d, &["Good morning, we are Acme Robotics."]);
    let out = d.send(Event::SlideChanged { index: 1 });
    assert!(calls(&out).is_empty());
    present(
        &mut d,
        &[
            "Warehouses lose margin to manual picking.",
            "Turnover is above 40 percent.",
        ],
    );
    d.candidate(
        "analyst",
        "How did you measure the 40 percent staff turnover figure?",
        0.7,
    );
    for (slide, lines) in [
        (
            2,
            [
                "The automation market is 40 billion dollars.",
                "Operators plan to automate.",
            ],
        ),
        (
            3,
            [
                "We charge 2,500 per robot per month.",
                "Gross margin is 62 percent.",
            ],
        ),
        (
            4,
            [
                "Incumbents serve the largest sites.",
                "Our moat is the grasping model.",
            ],
        ),
    ] {
        let out = d.send(Event::SlideChanged { index: slide });
        assert!(
            !calls(&out).is_empty(),
            "a question at the break before slide {slide}"
        );
        pump(&mut d, out, &mut panel);
        assert_eq!(d.core.phase(), Phase::Presenting);
        present(&mut d, &lines);
    }
    let out = d.send(Event::OpenQaRequested);
    pump(&mut d, out, &mut panel);
    d.now += 5_000;
    let out = d.send(Event::EndSession);
    assert!(panel.answers.is_empty(), "left: {:?}", panel.answers);

    let records = d.core.records();
    let summary: Vec<(usize, &str, Trigger, Outcome)> = records
        .iter()
        .map(|r| (r.slide, r.agent.as_str(), r.trigger, r.outcome))
        .collect();
    assert_eq!(
        summary,
        [
            (1, "skeptic", Trigger::SectionBreak, Outcome::TurnLimit),
            (
                1,
                "analyst",
                Trigger::SectionBreak,
                Outcome::PresenterMovedOn
            ),
            (2, "analyst", Trigger::SectionBreak, Outcome::Circular),
            (
                3,
                "skeptic",
                Trigger::SectionBreak,
                Outcome::PresenterMovedOn
            ),
            (4, "contrarian", Trigger::OpenQa, Outcome::TurnLimit),
        ]
    );
    for r in records {
        let agent_turns = r
            .turns
            .iter()
            .filter(|t| t.speaker != Speaker::Presenter)
            .count();
        assert!(agent_turns <= 3, "moderate allows 3 agent turns");
    }
    let pile = records[2].pile_on.as_ref().unwrap();
    assert_eq!(pile.agent, "contrarian");
    assert!(matches!(
        pile.status,
        PileOnStatus::Asked { answer: Some(_) }
    ));
    assert!(records[3].turns[1].dodged);

    let Some(Action::WriteDebrief { markdown }) = out.last() else {
        panic!("no debrief: {out:?}")
    };
    assert!(
        markdown.contains("| 1 | The Problem | 2 | Marcus Webb, Priya Sharma |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| 2 | Market Size | 1 | Priya Sharma, James O'Brien |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| 0 | Acme Robotics | 0 | — |"),
        "{markdown}"
    );
    let unresolved = markdown
        .split("## Unresolved challenges")
        .nth(1)
        .unwrap()
        .split("## Presenter profile")
        .next()
        .unwrap();
    assert_eq!(unresolved.matches("- **").count(), 2, "{unresolved}");
    assert!(markdown.contains("did not touch the question's topic: 1"));
    assert!(
        markdown.contains("stepped in 3 times (turn limit 2, circular 1"),
        "{markdown}"
    );

    if std::env::var_os("SHOW_DEBRIEF").is_some() {
        println!("{markdown}");
    }
    // Every line the moderator spoke came from the library, with placeholders filled.
    for (_, a) in &d.log {
        if let Action::Say { text, .. } = a {
            assert!(!text.contains('{'), "{text}");
        }
    }
}
