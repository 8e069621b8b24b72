use crate::roundtable::decide::*;
use crate::roundtable::state::*;
use crate::*;

const AGENTS: [&str; 3] = ["agent-1", "agent-2", "agent-3"];

fn scenario() -> Scenario {
    Scenario::with_defaults("city traffic", &AGENTS).unwrap()
}

fn scenario_with(yaml_moderator: &str) -> Scenario {
    let yaml = format!(
        "topic: city traffic\nagents: [{{id: agent-1}}, {{id: agent-2}}, {{id: agent-3}}]\nmoderator: {yaml_moderator}\n"
    );
    Scenario::from_yaml(&yaml).unwrap()
}

fn in_phase(c: &Scenario, phase: Phase) -> ModeratorState {
    update_state_after_phase_switch(&initial_state(c), phase, false)
}

// ----- the spec's three scenarios -------------------------------------------------------

#[test]
fn spec_scenario_1_normal_discussion_highest_urgency_wins() {
    let c = scenario();
    let mut state = in_phase(&c, Phase::FreeDiscussion);
    state.phase_round = 3;
    state.idle_rounds = 0;
    state.last_speaker = Some("agent-1".into());
    state.consecutive_speaks = 1;
    assert_eq!(
        phase_config(&c, state.phase).unwrap().speaking_order,
        SpeakingOrder::Free
    );
    let intents = [Intent::speak("agent-2", 3), Intent::speak("agent-3", 2)];
    let d = decide_next_action(&c, &state, &intents, &[]);
    assert_eq!(d.action, ModeratorAction::AllowSpeech);
    assert_eq!(d.target.as_deref(), Some("agent-2"));
    assert!(!d.is_interrupt);
}

#[test]
fn spec_scenario_2_cold_room_calls_least_spoken() {
    let c = scenario_with("{cold_threshold: 3, intervention_level: 2}");
    let mut state = in_phase(&c, Phase::FreeDiscussion);
    state.idle_rounds = 4;
    state.speak_counts.insert("agent-1".into(), 5);
    state.speak_counts.insert("agent-2".into(), 2);
    state.speak_counts.insert("agent-3".into(), 1);
    let d = decide_next_action(&c, &state, &[], &[]);
    assert_eq!(d.action, ModeratorAction::CallAgent);
    assert_eq!(d.target.as_deref(), Some("agent-3"));
    // The spec's reason, 请发表您的观点.
    assert!(
        d.reason.starts_with("Please share your view"),
        "{}",
        d.reason
    );
}

#[test]
fn spec_scenario_3_interrupt_while_the_speaker_is_held_back() {
    let c = scenario();
    let mut state = in_phase(&c, Phase::FocusedConflict);
    assert!(phase_config(&c, state.phase).unwrap().allow_interrupt);
    state.last_speaker = Some("agent-1".into());
    state.consecutive_speaks = 2;
    let intents = [Intent::speak("agent-1", 3), Intent::interrupt("agent-2", 4)];
    let d = decide_next_action(&c, &state, &intents, &[]);
    assert_eq!(d.action, ModeratorAction::AllowSpeech);
    assert_eq!(d.target.as_deref(), Some("agent-2"));
    assert!(d.is_interrupt);
    assert!(d.reason.contains("agent-1 is held back"), "{}", d.reason);
}

// ----- decision rules -----------------------------------------------------------------

#[test]
fn not_started_switches_into_the_first_phase() {
    let c = scenario();
    let d = decide_next_action(&c, &initial_state(&c), &[], &[]);
    assert_eq!(d.action, ModeratorAction::SwitchPhase);
    assert_eq!(d.next_phase, Some(Phase::Opening));
}

#[test]
fn round_limit_summarizes_then_switches_then_ends_after_closing() {
    let c = scenario();
    let mut state = in_phase(&c, Phase::FreeDiscussion);
    state = update_state_after_speech(&state, "agent-1");
    state.phase_round = phase_config(&c, Phase::FreeDiscussion).unwrap().max_rounds;
    let d = decide_next_action(&c, &state, &[Intent::speak("agent-2", 5)], &[]);
    assert_eq!(d.action, ModeratorAction::ForceSummary);
    state = apply_decision(&state, &d);
    let d = decide_next_action(&c, &state, &[Intent::speak("agent-2", 5)], &[]);
    assert_eq!(d.action, ModeratorAction::SwitchPhase);
    assert_eq!(d.next_phase, Some(Phase::FocusedConflict));

    let mut closing = in_phase(&c, Phase::Closing);
    closing.phase_round = phase_config(&c, Phase::Closing).unwrap().max_rounds;
    let d = decide_next_action(&c, &closing, &[], &[]);
    assert_eq!(d.action, ModeratorAction::EndDiscussion);
    assert_eq!(d.next_phase, Some(Phase::Ended));
    assert_eq!(apply_decision(&closing, &d).phase, Phase::Ended);
}

#[test]
fn no_summary_when_nobody_spoke() {
    let c = scenario();
    let mut state = in_phase(&c, Phase::Convergence);
    state.phase_round = 99;
    let d = decide_next_action(&c, &state, &[], &[]);
    assert_eq!(d.action, ModeratorAction::SwitchPhase);
    assert_eq!(d.next_phase, Some(Phase::Closing));
}

#[test]
fn convergence_rolls_back_once_when_two_agents_insist() {
    let c = scenario();
    let state = in_phase(&c, Phase::Convergence);
    let intents = [
        Intent::interrupt("agent-1", 4),
        Intent::interrupt("agent-3", 5),
    ];
    let d = decide_next_action(&c, &state, &intents, &[]);
    assert_eq!(d.action, ModeratorAction::SwitchPhase);
    assert_eq!(d.next_phase, Some(Phase::FreeDiscussion));
    assert!(d.is_rollback);
    let after = apply_decision(&state, &d);
    assert_eq!(after.rollbacks, 1);
    let again = update_state_after_phase_switch(&after, Phase::Convergence, false);
    let d = decide_next_action(&c, &again, &intents, &[]);
    assert_ne!(d.action, ModeratorAction::SwitchPhase, "max_rollbacks is 1");
    // One insisting agent is not enough.
    let d = decide_next_action(&c, &state, &intents[..1], &[]);
    assert_ne!(d.action, ModeratorAction::SwitchPhase);
}

#[test]
fn focused_conflict_rolls_back_only_when_everyone_shouts() {
    let c = scenario();
    let state = in_phase(&c, Phase::FocusedConflict);
    let loud: Vec<Intent> = AGENTS.iter().map(|a| Intent::interrupt(*a, 5)).collect();
    assert!(decide_next_action(&c, &state, &loud, &[]).is_rollback);
    let two = &loud[..2];
    assert!(!decide_next_action(&c, &state, two, &[]).is_rollback);
}

#[test]
fn interrupts_need_permission_and_urgency() {
    let c = scenario();
    // Convergence: no interrupts by default; moderator_called order.
    let mut state = in_phase(&c, Phase::FreeDiscussion);
    state.last_speaker = Some("agent-1".into());
    state.consecutive_speaks = 1;
    let d = decide_next_action(&c, &state, &[Intent::interrupt("agent-2", 2)], &[]);
    assert_eq!(d.target.as_deref(), Some("agent-2"));
    assert!(!d.is_interrupt, "urgency 2 is an ordinary request");

    let opening = in_phase(&c, Phase::Opening);
    let d = decide_next_action(&c, &opening, &[Intent::interrupt("agent-3", 5)], &[]);
    assert!(!d.is_interrupt, "opening does not allow interrupts");
    assert_eq!(d.target.as_deref(), Some("agent-1"), "round robin goes on");
}

#[test]
fn equal_urgency_prefers_the_less_heard_agent() {
    let c = scenario();
    let mut state = in_phase(&c, Phase::FreeDiscussion);
    state = update_state_after_speech(&state, "agent-2");
    state = update_state_after_speech(&state, "agent-1");
    let d = decide_next_action(
        &c,
        &state,
        &[Intent::speak("agent-2", 3), Intent::speak("agent-3", 3)],
        &[],
    );
    assert_eq!(d.target.as_deref(), Some("agent-3"));
}

#[test]
fn held_back_only_requester_is_rejected_and_then_warned() {
    let c = scenario_with("{intervention_level: 0}");
    let mut state = in_phase(&c, Phase::FreeDiscussion);
    state = update_state_after_speech(&state, "agent-1");
    state = update_state_after_speech(&state, "agent-1");
    let intents = [Intent::speak("agent-1", 5)];
    state = update_state_after_intents(&c, &state, &intents);
    let d = decide_next_action(&c, &state, &intents, &[]);
    assert_eq!(d.action, ModeratorAction::RejectSpeech);
    assert_eq!(d.target.as_deref(), Some("agent-1"));
    state = apply_decision(&state, &d);
    state = update_state_after_intents(&c, &state, &intents);
    let d = decide_next_action(&c, &state, &intents, &[]);
    assert_eq!(d.action, ModeratorAction::WarnAgent);
    assert_eq!(d.target.as_deref(), Some("agent-1"));
    state = apply_decision(&state, &d);
    assert_eq!(state.warnings.get("agent-1"), Some(&1));
    let d = decide_next_action(&c, &state, &intents, &[]);
    assert_eq!(d.action, ModeratorAction::RejectSpeech);
}

#[test]
fn intervention_levels() {
    let quiet = |c: &Scenario, idle: u32| {
        let mut s = in_phase(c, Phase::FreeDiscussion);
        s.idle_rounds = idle;
        s
    };
    let c0 = scenario_with("{intervention_level: 0, cold_threshold: 2}");
    assert_eq!(
        decide_next_action(&c0, &quiet(&c0, 10), &[], &[]).action,
        ModeratorAction::Wait
    );
    let c1 = scenario_with("{intervention_level: 1, cold_threshold: 2}");
    assert_eq!(
        decide_next_action(&c1, &quiet(&c1, 3), &[], &[]).action,
        ModeratorAction::Wait
    );
    assert_eq!(
        decide_next_action(&c1, &quiet(&c1, 4), &[], &[]).action,
        ModeratorAction::CallAgent
    );
    let c2 = scenario_with("{intervention_level: 2, cold_threshold: 2}");
    assert_eq!(
        decide_next_action(&c2, &quiet(&c2, 1), &[], &[]).action,
        ModeratorAction::Wait
    );
    assert_eq!(
        decide_next_action(&c2, &quiet(&c2, 2), &[], &[]).action,
        ModeratorAction::CallAgent
    );
    let c3 = scenario_with("{intervention_level: 3, cold_threshold: 2}");
    assert_eq!(
        decide_next_action(&c3, &quiet(&c3, 0), &[], &[]).action,
        ModeratorAction::Wait
    );
    assert_eq!(
        decide_next_action(&c3, &quiet(&c3, 1), &[], &[]).action,
        ModeratorAction::PromptQuestion
    );
    let asked = [RecentEvent::ModeratorLine {
        kind: LineKind::Question,
    }];
    assert_eq!(
        decide_next_action(&c3, &quiet(&c3, 2), &[], &asked).action,
        ModeratorAction::CallAgent
    );
}

#[test]
fn level_2_calls_an_agent_that_fell_behind() {
    let c = scenario();
    let mut state = in_phase(&c, Phase::FreeDiscussion);
    for a in ["agent-1", "agent-2", "agent-1", "agent-2"] {
        state = update_state_after_speech(&state, a);
    }
    let d = decide_next_action(&c, &state, &[], &[]);
    assert_eq!(d.action, ModeratorAction::CallAgent);
    assert_eq!(d.target.as_deref(), Some("agent-3"));
}

#[test]
fn absent_agents_are_not_called_again_while_others_can_be() {
    let c = scenario_with("{cold_threshold: 1}");
    let mut state = in_phase(&c, Phase::FreeDiscussion);
    state.idle_rounds = 3;
    let recent = [RecentEvent::NoShow {
        agent: "agent-1".into(),
    }];
    let d = decide_next_action(&c, &state, &[], &recent);
    assert_eq!(d.target.as_deref(), Some("agent-2"));
}

#[test]
fn round_robin_and_moderator_called_orders() {
    let c = scenario();
    let mut state = in_phase(&c, Phase::Opening);
    let mut order = Vec::new();
    for _ in 0..3 {
        let d = decide_next_action(&c, &state, &[], &[]);
        assert_eq!(d.action, ModeratorAction::CallAgent);
        let agent = d.target.unwrap();
        state = update_state_after_speech(&state, &agent);
        order.push(agent);
    }
    assert_eq!(order, AGENTS);

    let mut conv = in_phase(&c, Phase::Convergence);
    conv = update_state_after_speech(&conv, "agent-1");
    let intents = [
        Intent::pass("agent-2"),
        Intent::speak("agent-3", 1),
        Intent::speak("agent-1", 5),
    ];
    let d = decide_next_action(&c, &conv, &intents, &[]);
    assert_eq!(d.action, ModeratorAction::AllowSpeech);
    assert_eq!(
        d.target.as_deref(),
        Some("agent-3"),
        "least heard that did not pass"
    );
}

#[test]
fn unknown_agents_and_duplicates_in_intents() {
    let c = scenario();
    let state = in_phase(&c, Phase::FreeDiscussion);
    let intents = [
        Intent::speak("stranger", 5),
        Intent::speak("agent-2", 5),
        Intent::pass("agent-2"),
        Intent::new("agent-3", IntentKind::Speak, 200),
    ];
    let d = decide_next_action(&c, &state, &intents, &[]);
    assert_eq!(d.target.as_deref(), Some("agent-3"));
}

#[test]
fn consecutive_streak_counts_only_agent_speeches() {
    let c = scenario();
    let mut s = in_phase(&c, Phase::FreeDiscussion);
    s = update_state_after_speech(&s, "agent-1");
    s = update_state_after_idle_round(&s);
    s = update_state_after_speech(&s, "agent-1");
    assert_eq!(s.consecutive_speaks, 2);
    assert!(s.is_held_back("agent-1", 2));
    s = update_state_after_speech(&s, "agent-2");
    assert_eq!(s.consecutive_speaks, 1);
    assert_eq!(s.speaks("agent-1"), 2);
    assert_eq!(s.rounds_since_spoke("agent-1"), Some(1));
    assert_eq!(s.rounds_since_spoke("agent-3"), None);
}

// ----- scenario file ----------------------------------------------------------------------

#[test]
fn sample_scenario_is_valid() {
    let s = Scenario::from_yaml(SAMPLE_SCENARIO).unwrap();
    assert_eq!(s.agents.len(), 3);
    assert_eq!(s.agents[0].id, "economist");
    assert_eq!(s.agents[0].name, "the economist");
    assert_eq!(s.phases.len(), 5);
    assert_eq!(s.moderator.name, "Alex");
    let conv = s.phase(PhaseType::Convergence).unwrap();
    assert_eq!(conv.questions.len(), 1);
    assert_eq!(conv.speaking_order, SpeakingOrder::ModeratorCalled);
}

#[test]
fn minimal_scenario_gets_defaults() {
    let s = Scenario::from_yaml("topic: t\nagents:\n  - id: a\n  - id: b\n").unwrap();
    assert_eq!(s.phases.len(), 5);
    assert_eq!(s.moderator.max_consecutive_speaks, MAX_CONSECUTIVE_SPEAKS);
    assert_eq!(s.moderator.max_rollbacks, 1);
    assert_eq!(s.moderator.intervention_level, 2);
    let opening = s.phase(PhaseType::Opening).unwrap();
    assert_eq!(opening.max_rounds, 2);
    assert_eq!(opening.speaking_order, SpeakingOrder::RoundRobin);
    assert!(!opening.allow_interrupt);
    assert!(s.phase(PhaseType::FocusedConflict).unwrap().allow_interrupt);
    assert!(s.phase(PhaseType::Convergence).unwrap().rollback.is_some());
    assert!(
        s.phase(PhaseType::FreeDiscussion)
            .unwrap()
            .rollback
            .is_none()
    );
    assert_eq!(s.agents[1].name, "b");
}

#[test]
fn scenario_errors_are_clear() {
    let err = |yaml: &str| Scenario::from_yaml(yaml).unwrap_err();
    let agents = "agents: [{id: a}, {id: b}]\n";
    assert!(matches!(
        err(&format!("topic: t\n{agents}phases: [{{type: debate}}]")),
        ScenarioError::Yaml(m) if m.contains("unknown variant `debate`")
    ));
    assert_eq!(err("topic: t\nagents: []"), ScenarioError::NoAgents);
    assert_eq!(err("topic: t"), ScenarioError::NoAgents);
    assert_eq!(err(agents), ScenarioError::EmptyTopic);
    assert_eq!(
        err(&format!(
            "topic: t\n{agents}phases: [{{type: opening, max_rounds: 0}}]"
        )),
        ScenarioError::ZeroMaxRounds(PhaseType::Opening)
    );
    assert_eq!(
        err("topic: t\nagents: [{id: a}, {id: a}]"),
        ScenarioError::DuplicateAgent("a".into())
    );
    assert_eq!(
        err("topic: t\nagents: [{id: ' '}]"),
        ScenarioError::EmptyAgentId { index: 0 }
    );
    assert_eq!(
        err(&format!("topic: t\n{agents}phases: []")),
        ScenarioError::NoPhases
    );
    assert_eq!(
        err(&format!(
            "topic: t\n{agents}phases: [{{type: closing}}, {{type: opening}}]"
        )),
        ScenarioError::PhaseOrder {
            phase: PhaseType::Opening,
            after: PhaseType::Closing
        }
    );
    assert_eq!(
        err(&format!(
            "topic: t\n{agents}phases: [{{type: opening}}, {{type: opening}}]"
        )),
        ScenarioError::DuplicatePhase(PhaseType::Opening)
    );
    assert_eq!(
        err(&format!(
            "topic: t\n{agents}phases: [{{type: opening, rollback: {{}}}}]"
        )),
        ScenarioError::RollbackNotAllowed(PhaseType::Opening)
    );
    assert_eq!(
        err(&format!(
            "topic: t\n{agents}phases: [{{type: convergence, rollback: {{min_urgency: 9}}}}]"
        )),
        ScenarioError::RollbackUrgency {
            phase: PhaseType::Convergence,
            urgency: 9
        }
    );
    assert_eq!(
        err(&format!(
            "topic: t\n{agents}moderator: {{intervention_level: 4}}"
        )),
        ScenarioError::InterventionLevel(4)
    );
    assert_eq!(
        err(&format!(
            "topic: t\n{agents}moderator: {{cold_threshold: 0}}"
        )),
        ScenarioError::Zero("cold_threshold")
    );
    assert!(matches!(
        err(&format!("topic: t\n{agents}colour: red")),
        ScenarioError::Yaml(m) if m.contains("colour")
    ));
    assert!(
        ScenarioError::ZeroMaxRounds(PhaseType::Convergence)
            .to_string()
            .contains("convergence")
    );
}

#[test]
fn disabled_rollback_and_skipped_phases() {
    let s = Scenario::from_yaml(
        "topic: t\nagents: [{id: a}, {id: b}]\nphases:\n  - {type: opening}\n  - {type: convergence, rollback: {enabled: false}}\n  - {type: closing}\n",
    )
    .unwrap();
    assert!(s.phase(PhaseType::Convergence).unwrap().rollback.is_none());
    assert_eq!(
        s.next_phase(PhaseType::Opening),
        Some(PhaseType::Convergence)
    );
    assert_eq!(s.next_phase(PhaseType::Closing), None);
}

// ----- intents -------------------------------------------------------------------------

#[test]
fn parse_valid_intents() {
    assert_eq!(
        parse_intent("a", r#"{"intent":"speak","urgency":3}"#),
        Ok(Intent::speak("a", 3))
    );
    assert_eq!(
        parse_intent("a", " {\"urgency\": 5, \"intent\": \"interrupt\"}\n"),
        Ok(Intent::interrupt("a", 5))
    );
    assert_eq!(
        parse_intent("a", r#"{"intent":"pass"}"#),
        Ok(Intent::pass("a"))
    );
    assert_eq!(
        parse_intent("a", r#"{"intent":"pass","urgency":1}"#),
        Ok(Intent::pass("a"))
    );
}

#[test]
fn parse_rejects_everything_else() {
    use IntentError::*;
    let e = |s: &str| parse_intent("a", s).unwrap_err();
    assert_eq!(e(""), Empty);
    assert_eq!(e("   "), Empty);
    assert!(matches!(e("speak"), NotJson(_)));
    assert!(matches!(
        e(r#"{"intent":"speak","urgency":3} because I disagree"#),
        NotJson(_)
    ));
    assert!(matches!(
        e("```json\n{\"intent\":\"speak\",\"urgency\":3}\n```"),
        NotJson(_)
    ));
    assert_eq!(e("[1]"), NotAnObject);
    assert_eq!(
        e(r#"{"intent":"speak","urgency":3,"why":"x"}"#),
        UnknownField("why".into())
    );
    assert_eq!(e(r#"{"urgency":3}"#), MissingField("intent"));
    assert_eq!(e(r#"{"intent":"speak"}"#), MissingField("urgency"));
    assert_eq!(
        e(r#"{"intent":"shout","urgency":3}"#),
        UnknownIntent("shout".into())
    );
    assert_eq!(
        e(r#"{"intent":"Speak","urgency":3}"#),
        UnknownIntent("Speak".into())
    );
    assert_eq!(e(r#"{"intent":1,"urgency":3}"#), IntentNotAString);
    assert_eq!(e(r#"{"intent":"speak","urgency":0}"#), UrgencyOutOfRange(0));
    assert_eq!(e(r#"{"intent":"speak","urgency":6}"#), UrgencyOutOfRange(6));
    assert_eq!(
        e(r#"{"intent":"speak","urgency":-1}"#),
        UrgencyOutOfRange(-1)
    );
    assert_eq!(
        e(r#"{"intent":"speak","urgency":18446744073709551615}"#),
        UrgencyOutOfRange(18446744073709551615)
    );
    assert!(matches!(
        e(r#"{"intent":"speak","urgency":3.0}"#),
        UrgencyNotAnInteger(_)
    ));
    assert!(matches!(
        e(r#"{"intent":"speak","urgency":"3"}"#),
        UrgencyNotAnInteger(_)
    ));
    assert_eq!(e(&"x".repeat(2000)), TooLong);
}

fn ctx(phase: Phase) -> HeuristicContext {
    HeuristicContext {
        last_speaker: Some("other".into()),
        last_text: "Cars are fine.".into(),
        addressed: false,
        is_question: false,
        own_speaks: 1,
        others_speaks: 2,
        others_count: 2,
        rounds_since_spoke: Some(1),
        phase,
    }
}

#[test]
fn heuristic_formula() {
    // base 2, nothing else: speak 2.
    assert_eq!(
        heuristic_intent("me", &ctx(Phase::FreeDiscussion)),
        Intent::speak("me", 2)
    );
    // Convergence base 1: pass.
    assert_eq!(
        heuristic_intent("me", &ctx(Phase::Convergence)),
        Intent::pass("me")
    );
    // Just spoke: pass, whatever else.
    let mut c = ctx(Phase::FocusedConflict);
    c.last_speaker = Some("me".into());
    c.addressed = true;
    assert_eq!(heuristic_intent("me", &c), Intent::pass("me"));
    // Addressed by name with a question in focused conflict: 3+2+1 → interrupt 5.
    let mut c = ctx(Phase::FocusedConflict);
    c.addressed = true;
    c.is_question = true;
    assert_eq!(heuristic_intent("me", &c), Intent::interrupt("me", 5));
    // Quiet for a while: +1.
    let mut c = ctx(Phase::FreeDiscussion);
    c.rounds_since_spoke = None;
    c.is_question = true;
    assert_eq!(heuristic_intent("me", &c), Intent::speak("me", 4));
    // Dominant: 5 speeches against a mean of 1: −1.
    let mut c = ctx(Phase::FreeDiscussion);
    c.own_speaks = 5;
    assert_eq!(heuristic_intent("me", &c), Intent::pass("me"));
}

#[test]
fn name_mentions_and_questions() {
    assert!(mentions_name("Engineer, what do you say?", "engineer"));
    assert!(mentions_name("I ask the economist.", "the economist"));
    assert!(!mentions_name("engineering matters", "engineer"));
    assert!(!mentions_name("anything", ""));
    assert!(mentions_name("我想听听经济学家的看法", "经济学家"));
    assert!(mentions_name("agent-2: please", "agent-2"));
    assert!(!mentions_name("agent-22 please", "agent-2"));
    assert!(text::words::line_asks("Really?"));
    assert!(text::words::line_asks("真的吗？"));
    assert!(!text::words::line_asks("Yes."));
}

// ----- phrases and summary ------------------------------------------------------------------

#[test]
fn templates_fill_in_one_pass() {
    assert_eq!(
        phrases::fill(
            "{name} on {topic} {x} {",
            &[("name", "{topic}"), ("topic", "T")]
        ),
        "{topic} on T {x} {"
    );
    assert_eq!(phrases::join_names(&["a", "b", "c"]), "a, b and c");
    assert_eq!(phrases::join_names(&["a", "b"]), "a and b");
    assert_eq!(phrases::join_names::<&str>(&[]), "");
    assert_eq!(
        phrases::RoundtablePhrases::builtin().call(
            Language::En,
            PhaseType::FreeDiscussion,
            "the engineer",
            false,
            0
        ),
        "the engineer, what is your view?"
    );
}

/// Sentence ends: `.`, `!` or `?` followed by whitespace or the end of the text.
pub(crate) fn sentences(text: &str) -> usize {
    let chars: Vec<char> = text.chars().collect();
    (0..chars.len())
        .filter(|&i| {
            matches!(chars[i], '.' | '!' | '?')
                && chars.get(i + 1).is_none_or(|c| c.is_whitespace())
        })
        .count()
}

#[test]
fn summary_is_extractive_and_short() {
    let spoken = vec![
        (
            "the economist".to_string(),
            "Well. A congestion charge raises 3.5 billion a year and cuts traffic by a fifth, as London showed. More later!".to_string(),
        ),
        (
            "the engineer".to_string(),
            "Buses need dedicated lanes first".to_string(),
        ),
    ];
    let s = summary::extractive_summary(
        Language::En,
        "the open discussion",
        &spoken,
        &["the ethicist".to_string()],
    );
    assert_eq!(
        s,
        "Let me sum up the open discussion. The economist said: A congestion charge raises 3.5 billion a year and cuts traffic by a fifth; the engineer said: Buses need dedicated lanes first. We have not yet heard from the ethicist."
    );
    assert_eq!(sentences(&s), 3);
    let empty = summary::extractive_summary(Language::En, "x", &[], &[]);
    assert_eq!(sentences(&empty), 2);
}

#[test]
fn a_summary_quotes_a_point_not_an_introduction_and_cuts_between_words() {
    // Heard in a roundtable: "Dr Nadia Okafor said: As an urban economist; … Prof
    // Amara Singh said: … the lack of incentives f."
    assert_eq!(
        summary::key_clause(
            "As an urban economist, I would say that the previous speaker is clearly correct, especially when it comes to bans of private cars due to their financial burden."
        )
        .as_deref(),
        Some("I would say that the previous speaker is clearly correct")
    );
    let long = "I don't disagree. It's understandable that the speaker has different opinions about the lack of incentives for car ownership between private individuals.";
    let clause = summary::key_clause(long).unwrap();
    assert!(
        clause.chars().count() <= summary::MAX_CLAUSE_CHARS,
        "{clause}"
    );
    let last = clause.split_whitespace().last().unwrap();
    assert!(
        long.split_whitespace()
            .any(|w| w.trim_end_matches('.') == last),
        "{clause}"
    );
    // Every clause an introduction: the first is quoted still.
    assert_eq!(
        summary::key_clause(
            "As an urban economist with many years, in my own long view of this whole matter today."
        )
        .as_deref(),
        Some("As an urban economist with many years")
    );
}

#[test]
fn summary_survives_hostile_text() {
    let spoken: Vec<(String, String)> = (0..8)
        .map(|i| {
            (
                format!("Dr. N{i}"),
                "?!... ;; 。。 \"quoted\" text?!".to_string(),
            )
        })
        .collect();
    let s = summary::extractive_summary(Language::En, "p", &spoken, &[]);
    assert!(sentences(&s) <= 3, "{s}");
}

// ----- Mandarin -----------------------------------------------------------------------------

#[test]
fn chinese_names_and_summaries() {
    assert_eq!(
        phrases::join_names_in(Language::Zh, &["甲", "乙", "丙"]),
        "甲、乙和丙"
    );
    let spoken = vec![
        (
            "经济学家".to_string(),
            "我认为拥堵费是最有效的工具，伦敦的经验表明它每年能减少五分之一的交通量，而且收入可以用于公共交通。还有别的。".to_string(),
        ),
        ("工程师".to_string(), "先修公交专用道。".to_string()),
    ];
    let s = summary::extractive_summary(Language::Zh, "自由讨论", &spoken, &["伦理学家".into()]);
    assert_eq!(
        s,
        "我来总结一下自由讨论。经济学家：我认为拥堵费是最有效的工具；工程师：先修公交专用道。我们还没有听到伦理学家的发言。"
    );
    let empty = summary::extractive_summary(Language::Zh, "讨论", &[], &[]);
    assert!(empty.starts_with("我来总结一下讨论。"));
}
