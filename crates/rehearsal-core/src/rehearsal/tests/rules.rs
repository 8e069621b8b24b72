//! One test per moderator rule, driven through the rules' events.

use super::driver::*;
use crate::{
    Action, CandidatePurpose, Deck, Event, Instruction, Outcome, PanelConfig, Phase, PhraseKind,
    PhraseLibrary, PileOnStatus, Rehearsal, Trigger,
};

fn skeptic_question() -> &'static str {
    "What gross margin do you reach per robot at scale?"
}

/// Section-breaks panel; the presenter moves from the title slide to slide 2.
fn at_first_break(yaml: &str) -> (Driver, Vec<Action>) {
    let mut d = Driver::yaml(yaml);
    d.speech("Hello, we are Acme Robotics.");
    let out = d.send(Event::SlideChanged { index: 1 });
    assert!(
        calls(&out).is_empty(),
        "leaving the title slide is no break"
    );
    d.speech("Warehouses lose margin to manual picking.");
    let out = d.send(Event::SlideChanged { index: 2 });
    (d, out)
}

#[test]
fn section_break_emits_transition_and_call_together() {
    let (d, out) = at_first_break("");
    // Slide 1 (The Problem) mentions "margin": the skeptic's focus.
    assert_eq!(
        calls(&out),
        [("skeptic".to_owned(), Instruction::AskQuestion)]
    );
    let say = out
        .iter()
        .position(|a| {
            matches!(
                a,
                Action::Say {
                    kind: PhraseKind::Transition,
                    ..
                }
            )
        })
        .unwrap();
    let call = out
        .iter()
        .position(|a| matches!(a, Action::CallAgent { .. }))
        .unwrap();
    assert!(say < call);
    let text = said(&out, PhraseKind::Transition).unwrap();
    assert!(text.contains("Marcus Webb"), "{text}");
    assert!(text.contains("The Problem"), "{text}");
    assert_eq!(d.core.phase(), Phase::QaTrigger);
    assert!(out.contains(&Action::PhaseChanged {
        from: Phase::Presenting,
        to: Phase::QaTrigger
    }));
}

#[test]
fn going_back_or_revisiting_is_no_break() {
    let (mut d, out) = at_first_break("");
    d.play_lines(&out);
    d.agent_says(skeptic_question());
    let out = d.answer("Let's move on.");
    d.play_lines(&out);
    assert_eq!(d.core.phase(), Phase::Presenting);
    assert!(calls(&d.send(Event::SlideChanged { index: 1 })).is_empty());
    assert!(
        calls(&d.send(Event::SlideChanged { index: 2 })).is_empty(),
        "slide 1 had its break"
    );
}

#[test]
fn qa_trigger_ends_when_the_line_plays_or_the_turn_is_in() {
    let (mut d, out) = at_first_break("");
    d.play_lines(&out);
    assert_eq!(d.core.phase(), Phase::Exchange);

    let (mut d, _) = at_first_break("");
    d.agent_says(skeptic_question());
    assert_eq!(d.core.phase(), Phase::Exchange);
}

#[test]
fn friendly_steps_in_after_the_first_follow_up() {
    let (mut d, out) = at_first_break("intensity: friendly");
    d.play_lines(&out);
    d.agent_says(skeptic_question());
    let out = d.answer("About 62 percent gross margin at fifty robots.");
    assert!(said(&out, PhraseKind::MicroPhrase).is_some());
    assert_eq!(calls(&out), [("skeptic".to_owned(), Instruction::FollowUp)]);
    d.agent_says("And how does payback change with smaller sites?");
    let out = d.answer("Smaller sites pay back in about twelve months.");
    assert!(calls(&out).is_empty());
    assert!(said(&out, PhraseKind::BridgeBack).is_some());
    assert_eq!(logged(&out)[0].outcome, Outcome::FriendlyClose);
    assert_eq!(d.core.phase(), Phase::Resolving);
    d.play_lines(&out);
    assert_eq!(d.core.phase(), Phase::Presenting);
}

#[test]
fn moderate_steps_in_when_circular() {
    let (mut d, out) = at_first_break("");
    d.play_lines(&out);
    d.agent_says(skeptic_question());
    d.answer("Our gross margin is 62 percent with fifty robots deployed.");
    d.agent_says("That is today. What about the margin when you scale?");
    let out = d.answer("Again, gross margin is 62 percent with fifty robots deployed.");
    let rec = &logged(&out)[0];
    assert_eq!(rec.outcome, Outcome::Circular);
    assert_eq!(rec.turns.len(), 4);
}

#[test]
fn moderate_cuts_at_three_turns_and_flags_it() {
    let (mut d, out) = at_first_break("");
    d.play_lines(&out);
    d.agent_says(skeptic_question());
    d.answer("Sixty-two percent at fifty robots.");
    d.agent_says("How sensitive is that to maintenance costs?");
    d.answer("Maintenance is under eight percent of revenue.");
    d.agent_says("Who pays when a robot breaks down at night?");
    let out = d.answer("Our field technicians cover nights under contract.");
    let rec = &logged(&out)[0];
    assert_eq!(rec.outcome, Outcome::TurnLimit);
    assert_eq!(
        rec.turns
            .iter()
            .filter(|t| t.speaker != crate::Speaker::Presenter)
            .count(),
        3
    );
    d.play_lines(&out);
    let out = d.send(Event::EndSession);
    let Some(Action::WriteDebrief { markdown }) = out.last() else {
        panic!("no debrief: {out:?}")
    };
    let unresolved = markdown.split("## Unresolved challenges").nth(1).unwrap();
    assert!(unresolved.contains("cut at the turn limit"), "{markdown}");
}

#[test]
fn adversarial_runs_four_turns_unless_asked_to_move_on() {
    let (mut d, out) = at_first_break("intensity: adversarial");
    d.play_lines(&out);
    let questions = [
        "What gross margin per robot?",
        "How do maintenance costs evolve?",
        "Who pays for night repairs?",
        "Why would insurers cover robots?",
    ];
    let answers = [
        "Sixty-two percent today.",
        "Maintenance stays under eight percent.",
        "Technicians under contract.",
        "Insurers already cover forklifts.",
    ];
    let mut last = Vec::new();
    for (q, a) in questions.iter().zip(answers) {
        d.agent_says(q);
        last = d.answer(a);
    }
    assert_eq!(logged(&last)[0].outcome, Outcome::TurnLimit);
    assert_eq!(logged(&last)[0].turns.len(), 8);

    let (mut d, out) = at_first_break("intensity: adversarial");
    d.play_lines(&out);
    d.agent_says(questions[0]);
    let out = d.answer("I'd rather take that offline. Next question?");
    assert_eq!(logged(&out)[0].outcome, Outcome::PresenterMovedOn);
}

#[test]
fn candidates_are_requested_on_slide_change_and_every_15_s() {
    let mut d = Driver::yaml("");
    let out = d.send(Event::Tick);
    assert!(out.iter().any(|a| matches!(
        a,
        Action::RequestCandidates {
            purpose: CandidatePurpose::Question,
            ..
        }
    )));
    assert!(
        !d.wait(14_000)
            .iter()
            .any(|a| matches!(a, Action::RequestCandidates { .. }))
    );
    let out = d.wait(1_000);
    assert!(matches!(
        out.as_slice(),
        [Action::RequestCandidates { slide: 0, .. }, ..]
    ));
    let out = d.send(Event::SlideChanged { index: 1 });
    assert!(
        matches!(out.as_slice(), [Action::RequestCandidates { slide: 1, agents, .. }] if agents.len() == 3)
    );
}

#[test]
fn hands_are_capped_announced_and_acknowledged() {
    let mut d = Driver::yaml("mode: hand_raise");
    d.speech("Our robots pick items.");
    let hand = |agent: &str, urgency| Event::HandRaised {
        agent: agent.into(),
        urgency,
    };
    let out = d.send(hand("skeptic", 0.5));
    assert!(matches!(out[0], Action::Notice(_)), "below the threshold");
    d.send(hand("skeptic", 0.9));
    d.send(hand("analyst", 0.8));
    let out = d.send(hand("contrarian", 0.95));
    assert!(out.iter().any(|a| matches!(a, Action::Notice(_))));
    assert_eq!(d.core.hands_raised(), ["skeptic", "analyst"]);

    let out = d.wait(1_500);
    let notices: Vec<String> = out
        .iter()
        .filter_map(|a| match a {
            Action::Say {
                kind: PhraseKind::HandRaiseNotice,
                text,
                ..
            } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(notices.len(), 2);
    assert!(notices[0].starts_with("Marcus Webb has a question"));
    assert!(
        d.wait(1_500)
            .iter()
            .all(|a| !matches!(a, Action::Say { .. })),
        "announced once"
    );

    let out = d.send(Event::PresenterAcknowledged {
        agent: Some("analyst".into()),
    });
    assert_eq!(
        calls(&out),
        [("analyst".to_owned(), Instruction::AskQuestion)]
    );
    assert_eq!(d.core.hands_raised(), ["skeptic"]);
    assert_eq!(d.core.records().len(), 0);
}

#[test]
fn in_hand_raise_mode_an_urgent_candidate_raises_its_panelists_hand() {
    let mut d = Driver::yaml("mode: hand_raise");
    // Before the presenter said a word: no hand.
    d.candidate("analyst", "How did you measure the picking rate?", 0.9);
    assert!(d.core.hands_raised().is_empty());
    d.speech("Our robots pick items.");
    // Below the urgency threshold (0.6): kept as a candidate, no hand.
    d.candidate("skeptic", "What margin per robot?", 0.5);
    assert!(d.core.hands_raised().is_empty());
    d.candidate("analyst", "How did you measure the picking rate?", 0.75);
    d.candidate("contrarian", "Why robots at all?", 0.875);
    d.candidate("skeptic", "Which labour cost did you compare to?", 0.9);
    assert_eq!(
        d.core.hands_raised(),
        ["analyst", "contrarian"],
        "at most two"
    );
    // Taken, the hand's prepared question is the one asked.
    let out = d.send(Event::PresenterAcknowledged {
        agent: Some("contrarian".into()),
    });
    let asked = out.iter().find_map(|a| match a {
        Action::CallAgent {
            agent, candidate, ..
        } if agent == "contrarian" => candidate.clone(),
        _ => None,
    });
    assert_eq!(asked.as_deref(), Some("Why robots at all?"));
    // During the exchange a candidate raises no hand.
    d.candidate("skeptic", "Which labour cost did you compare to?", 0.9);
    assert_eq!(d.core.hands_raised(), ["analyst"]);
    // In section-breaks mode candidates never raise hands.
    let mut d = Driver::yaml("");
    d.candidate("analyst", "How did you measure the picking rate?", 0.9);
    assert!(d.core.hands_raised().is_empty());
}

#[test]
fn moving_on_by_button_closes_the_exchange_with_the_answer_so_far() {
    let (mut d, out) = at_first_break("intensity: adversarial");
    d.play_lines(&out);
    d.agent_says("What gross margin per robot?");
    d.speech("Sixty-two percent at fifty robots.");
    let out = d.send(Event::MoveOnRequested);
    let record = &logged(&out)[0];
    assert_eq!(record.outcome, Outcome::PresenterMovedOn);
    let answer = &record.turns.last().unwrap().text;
    assert_eq!(answer, "Sixty-two percent at fifty robots. Let's move on.");
    // Nothing to move on from: a notice, nothing else.
    let out = d.send(Event::MoveOnRequested);
    assert!(matches!(out.as_slice(), [Action::Notice(_)]), "{out:?}");
}

#[test]
fn hand_raise_is_ignored_in_other_modes() {
    let mut d = Driver::yaml("");
    d.send(Event::HandRaised {
        agent: "skeptic".into(),
        urgency: 1.0,
    });
    assert!(d.core.hands_raised().is_empty());
    let out = d.send(Event::PresenterAcknowledged { agent: None });
    assert!(out.iter().any(|a| matches!(a, Action::Notice(_))));
}

#[test]
fn free_flow_waits_for_silence_keeps_the_gap_and_queues_the_second() {
    let mut d = Driver::yaml("mode: free_flow");
    d.candidate("skeptic", "What does a robot cost per month?", 0.8);
    d.candidate("analyst", "How many operators did you survey?", 0.7);
    assert!(
        calls(&d.wait(5_000)).is_empty(),
        "no interjection before the presenter speaks"
    );
    d.speech("We automate picking in warehouses.");
    assert!(calls(&d.wait(1_500)).is_empty(), "1.5 s is no pause");
    let out = d.wait(1_000);
    assert_eq!(
        calls(&out),
        [("skeptic".to_owned(), Instruction::AskQuestion)]
    );
    assert_eq!(d.core.records().len(), 0);
    d.agent_says("What does a robot cost per month?");
    let out = d.answer("2,500 a month. Let's move on.");
    d.play_lines(&out);
    assert_eq!(d.core.phase(), Phase::Presenting);
    let back = d.now;

    d.speech("Our deployments take three weeks.");
    assert!(
        calls(&d.wait(3_000)).is_empty(),
        "within 20 s of the last exchange"
    );
    d.now = back + 19_000;
    d.speech("More speech.");
    let out = d.wait(3_000);
    assert_eq!(
        calls(&out),
        [("analyst".to_owned(), Instruction::AskQuestion)],
        "queued second"
    );
}

#[test]
fn free_flow_silence_can_be_reported() {
    let mut d = Driver::yaml("mode: free_flow");
    d.candidate("contrarian", "Why won't incumbents copy you?", 0.9);
    d.speech("We automate picking.");
    d.send(Event::PresenterSpeechStarted);
    assert!(calls(&d.wait(10_000)).is_empty(), "speech still open");
    let out = d.send(Event::PresenterSilence { duration_ms: 2_100 });
    assert_eq!(
        calls(&out),
        [("contrarian".to_owned(), Instruction::AskQuestion)]
    );
}

#[test]
fn selection_prefers_focus_match() {
    // Competition slide (4): the contrarian's focus.
    let mut d = Driver::yaml("");
    d.send(Event::SlideChanged { index: 4 });
    d.speech("Large incumbents sell to the biggest warehouses.");
    let out = d.send(Event::OpenQaRequested);
    assert_eq!(calls(&out)[0].0, "contrarian");
}

fn to_pile_on(yaml: &str, candidate: &str) -> (Driver, Vec<Action>) {
    let (mut d, out) = at_first_break(yaml);
    d.play_lines(&out);
    d.agent_says(skeptic_question());
    d.candidate("analyst", candidate, 0.8);
    d.answer("Our gross margin is 62 percent with fifty robots.");
    d.agent_says("And at a hundred robots?");
    let out = d.answer("It rises to 68 percent at a hundred robots.");
    (d, out)
}

const PILE_ON: &str = "Is the 62 percent gross margin measured across all fifty robots?";

#[test]
fn pile_on_with_time_left_is_one_turn() {
    let (mut d, out) = to_pile_on("intensity: friendly", PILE_ON);
    assert_eq!(calls(&out), [("analyst".to_owned(), Instruction::PileOn)]);
    assert!(
        said(&out, PhraseKind::PileOn)
            .unwrap()
            .contains("Priya Sharma")
    );
    assert_eq!(d.core.phase(), Phase::Resolving);
    assert!(logged(&out).is_empty());
    d.agent_says(PILE_ON);
    let out = d.answer("Yes, across the whole fleet.");
    assert!(calls(&out).is_empty(), "one pile-on turn only");
    let rec = &logged(&out)[0];
    assert_eq!(rec.outcome, Outcome::FriendlyClose);
    let p = rec.pile_on.as_ref().unwrap();
    assert_eq!(p.agent, "analyst");
    assert!(matches!(&p.status, PileOnStatus::Asked { answer: Some(a) } if a.contains("fleet")));
    assert!(said(&out, PhraseKind::BridgeBack).is_some());
}

#[test]
fn pile_on_is_skipped_and_flagged_when_time_is_tight() {
    let (mut d, out) = to_pile_on("intensity: friendly\nsession_duration_s: 150", PILE_ON);
    assert!(calls(&out).is_empty());
    assert!(said(&out, PhraseKind::BridgeBack).is_some());
    let p = logged(&out)[0].pile_on.clone().unwrap();
    assert!(matches!(p.status, PileOnStatus::SkippedTimeTight { .. }));
    let out = d.send(Event::EndSession);
    let Some(Action::WriteDebrief { markdown }) = out.last() else {
        panic!()
    };
    assert!(markdown.contains("pile-on skipped"), "{markdown}");
}

#[test]
fn pile_on_must_reference_the_exchange() {
    let (_, out) = to_pile_on(
        "intensity: friendly",
        "Who are your first customers in Europe?",
    );
    // No pile-on; the unrelated candidate opens the break's second exchange instead.
    assert_eq!(
        calls(&out),
        [("analyst".to_owned(), Instruction::AskQuestion)]
    );
    assert_eq!(logged(&out)[0].pile_on, None);
}

#[test]
fn a_section_break_allows_a_second_exchange() {
    let mut d = Driver::yaml("");
    d.candidate(
        "contrarian",
        "Why can't incumbents automate picking too?",
        0.6,
    );
    let out = {
        d.speech("Hello.");
        d.send(Event::SlideChanged { index: 1 });
        d.speech("Warehouses lose margin to manual picking.");
        d.send(Event::SlideChanged { index: 2 })
    };
    d.play_lines(&out);
    d.agent_says(skeptic_question());
    let out = d.answer("Sixty-two percent; let's move on.");
    assert!(said(&out, PhraseKind::BridgeBack).is_none());
    assert_eq!(logged(&out).len(), 1);
    assert!(out.contains(&Action::PhaseChanged {
        from: Phase::Resolving,
        to: Phase::Presenting
    }));
    assert!(out.iter().any(|a| matches!(a, Action::CallAgent { agent, instruction: Instruction::AskQuestion, candidate: Some(c), .. }
        if agent == "contrarian" && c.contains("incumbents"))));
    d.agent_says("Why can't incumbents automate picking too?");
    let out = d.answer("They could; we are faster to deploy. Next question.");
    assert!(
        said(&out, PhraseKind::BridgeBack).is_some(),
        "two exchanges per break at most"
    );
    let recs = d.core.records();
    assert_eq!(recs.len(), 2);
    assert!(
        recs.iter()
            .all(|r| r.slide == 1 && r.trigger == Trigger::SectionBreak)
    );
}

#[test]
fn engagement_prompt_after_three_quiet_minutes_but_not_near_the_end() {
    let mut d = Driver::yaml("mode: hand_raise");
    assert!(said(&d.wait(179_000), PhraseKind::EngagementPrompt).is_none());
    let out = d.wait(1_000);
    assert!(said(&out, PhraseKind::EngagementPrompt).is_some());
    assert!(
        said(&d.wait(60_000), PhraseKind::EngagementPrompt).is_none(),
        "not again at once"
    );

    let mut d = Driver::yaml("mode: hand_raise\nsession_duration_s: 250");
    assert!(said(&d.wait(200_000), PhraseKind::EngagementPrompt).is_none());
}

#[test]
fn long_monologue_suggests_a_pause() {
    let mut d = Driver::yaml("mode: hand_raise\nthresholds: {engagement_prompt_ms: 10000000}");
    let mut suggested = None;
    while d.now < 330_000 && suggested.is_none() {
        d.speech("And another point about our robots.");
        suggested = said(&d.wait(500), PhraseKind::SuggestPause);
        if suggested.is_none() {
            suggested = said(&d.wait(1_200), PhraseKind::SuggestPause);
        }
    }
    assert!(suggested.is_some());
    assert!(d.now >= 300_000);
}

#[test]
fn encourage_advance_when_every_agent_asked_about_the_slide() {
    let mut d = Driver::yaml("");
    d.speech("Hello.");
    let mut encouraged = None;
    for _ in 0..3 {
        let out = d.send(Event::OpenQaRequested);
        assert_eq!(calls(&out).len(), 1);
        d.agent_says("A question about robots and picking?");
        let out = d.answer("Let's move on.");
        d.play_lines(&out);
        encouraged = said(&d.wait(2_000), PhraseKind::EncourageAdvance);
    }
    let agents: std::collections::BTreeSet<_> =
        d.core.records().iter().map(|r| r.agent.clone()).collect();
    assert_eq!(agents.len(), 3, "least recently spoken rotates the panel");
    assert!(encouraged.unwrap().contains("Acme Robotics"));
}

#[test]
fn agent_timeout_cancels_and_resolves() {
    let (mut d, out) = at_first_break("");
    let qid = match &out[out.len() - 1] {
        Action::CallAgent { question_id, .. } => *question_id,
        other => panic!("{other:?}"),
    };
    let out = d.wait(45_000);
    assert!(out.contains(&Action::CancelAgent {
        agent: "skeptic".into(),
        question_id: qid
    }));
    assert_eq!(logged(&out)[0].outcome, Outcome::AgentTimedOut);
    assert_eq!(d.core.speaking(), None);
    assert_eq!(d.core.phase(), Phase::Resolving);
    d.wait(15_000);
    assert_eq!(
        d.core.phase(),
        Phase::Presenting,
        "bridge-back line timed out"
    );
}

#[test]
fn stale_turns_are_ignored() {
    let (mut d, _) = at_first_break("");
    let out = d.send(Event::AgentTurnFinished {
        agent: "skeptic".into(),
        question_id: 999,
        text: "x".into(),
    });
    assert!(matches!(out[0], Action::Notice(_)));
    assert!(d.core.speaking().is_some());
    let out = d.send(Event::PresenterAnswerFinished {
        text: "early".into(),
    });
    assert!(matches!(out[0], Action::Notice(_)));
}

#[test]
fn answer_end_is_derived_from_speech_and_silence() {
    let (mut d, out) = at_first_break("");
    d.play_lines(&out);
    d.agent_says(skeptic_question());
    d.speech("Sixty-two percent at fifty robots,");
    d.speech("rising with scale.");
    assert!(calls(&d.wait(2_000)).is_empty());
    let out = d.wait(600);
    assert_eq!(calls(&out), [("skeptic".to_owned(), Instruction::FollowUp)]);
    d.agent_says("Rising to what?");
    let out = d.wait(60_000);
    assert_eq!(logged(&out)[0].outcome, Outcome::NoAnswer);
    assert_eq!(
        logged(&out)[0].turns[1].text,
        "Sixty-two percent at fifty robots, rising with scale."
    );
}

#[test]
fn dodged_answers_reach_the_debrief() {
    let (mut d, out) = at_first_break("");
    d.play_lines(&out);
    d.agent_says("How do you calculate customer acquisition cost?");
    d.answer("Our team is passionate and experienced.");
    d.agent_says("What does a typical customer cost you?");
    d.answer("Acquisition cost is 9,000 per customer.");
    let markdown = d.core.debrief_markdown();
    assert!(
        markdown.contains("did not touch the question's topic: 0"),
        "not logged yet"
    );
    let out = d.send(Event::EndSession);
    let rec = &logged(&out)[0];
    assert!(rec.turns[1].dodged && !rec.turns[3].dodged);
    assert_eq!(rec.outcome, Outcome::SessionEnded);
    let Some(Action::WriteDebrief { markdown }) = out.last() else {
        panic!()
    };
    assert!(
        markdown.contains("did not touch the question's topic: 1"),
        "{markdown}"
    );
    assert!(markdown.contains("passionate"));
}

#[test]
fn end_of_session_cancels_closes_and_goes_quiet() {
    let (mut d, _) = at_first_break("");
    let qid = d.core.speaking().unwrap().1;
    let out = d.send(Event::EndSession);
    assert_eq!(
        out[0],
        Action::CancelAgent {
            agent: "skeptic".into(),
            question_id: qid
        }
    );
    assert!(out.contains(&Action::PhaseChanged {
        from: Phase::QaTrigger,
        to: Phase::Ended
    }));
    assert!(said(&out, PhraseKind::Closing).is_some());
    assert!(matches!(out.last(), Some(Action::WriteDebrief { .. })));
    assert!(d.send(Event::OpenQaRequested).is_empty());
    assert!(d.wait(100_000).is_empty());
    assert_eq!(d.core.next_deadline(), None);
}

#[test]
fn deadlines_point_to_the_future() {
    let mut d = Driver::yaml("mode: free_flow");
    d.send(Event::Tick);
    let next = d.core.next_deadline().unwrap();
    assert!(next > d.now && next <= d.now + 15_000);
    let (d, _) = at_first_break("");
    let next = d.core.next_deadline().unwrap();
    assert!(next > d.now);
}

/// The crate's first example, on the rules themselves.
#[test]
fn a_section_break_says_the_transition_and_calls_together() {
    let config = PanelConfig::from_yaml("intensity: friendly").unwrap();
    let deck = Deck::parse("## Problem\nManual picking kills margin.\n## Market\nTAM $40B.");
    let paced = crate::rehearsal::Config { paced: true };
    let mut moderator = Rehearsal::new(config, deck, PhraseLibrary::builtin(), paced).unwrap();
    moderator.decide(
        Event::PresenterSpeech {
            text: "Picking is costly.".into(),
            start_ms: 0,
            end_ms: 4_000,
        },
        4_000,
    );
    // Advancing past "Problem" opens a section break: transition line and call together.
    let actions = moderator.decide(Event::SlideChanged { index: 1 }, 5_000);
    assert!(actions.iter().any(|a| matches!(a, Action::Say { .. })));
    assert!(
        actions
            .iter()
            .any(|a| matches!(a, Action::CallAgent { agent, .. } if agent == "skeptic"))
    );
}
