use proptest::prelude::*;

use super::*;

fn study() -> Vec<Participant> {
    vec![
        Participant::new("tutor", "Ms. Rivera", "tutor"),
        Participant::new("student1", "Ben", "student"),
        Participant::new("student2", "Mia", "student"),
    ]
}

fn debate() -> Vec<Participant> {
    vec![
        Participant::new("judge", "Judge Okafor", "judge"),
        Participant::new("defense", "Counsel for the defense", "defense"),
        Participant::new("prosecution", "Counsel for the prosecution", "prosecution"),
    ]
}

fn agenda() -> Agenda {
    Agenda::parse(
        "topic: derivatives\nagenda:\n  - the slope of a tangent\n  - the power rule\n  - the chain rule\nlexicon: [slope]\n",
    )
    .unwrap()
}

fn plan_for(
    roster: &[Participant],
    me: &str,
    lines: &[Said],
    question_id: u64,
    instruction: Option<&str>,
) -> (TurnPlan, String) {
    let me = roster.iter().find(|p| p.id == me).unwrap();
    let agenda = agenda();
    let input = PlanInput {
        me,
        roster,
        lines,
        agenda: &agenda,
        question_id,
        instruction,
    };
    let p = plan(&input);
    let d = direction(&input, &p);
    (p, d)
}

#[test]
fn the_tutor_answers_a_students_question_with_an_example() {
    let lines = [Said::new("student1", "Why is the slope a limit?", false)];
    let (p, d) = plan_for(&study(), "tutor", &lines, 2, None);
    assert_eq!(p.action, Move::AnswerQuestion);
    assert_eq!(p.addressee.as_deref(), Some("Ben"));
    assert!(
        d.starts_with("Ben just said: “Why is the slope a limit?”\nYour turn, Ms. Rivera."),
        "{d}"
    );
    assert!(d.contains("Answer Ben's question"), "{d}");
    assert!(d.contains("the slope of a tangent"), "{d}");
}

#[test]
fn a_human_who_spoke_last_is_answered_first() {
    let lines = [
        Said::new("student1", "Why is the slope a limit?", false),
        Said::new(
            "human",
            "Can you show me the power rule with numbers?",
            true,
        ),
    ];
    for me in ["tutor", "student1", "student2"] {
        let (p, d) = plan_for(&study(), me, &lines, 5, None);
        assert_eq!(p.action, Move::AnswerHuman, "{me}");
        assert!(d.contains("Answer the human's question yourself"), "{d}");
        // The question is the prompt's own message; quoted again, it gets reported.
        assert!(!d.contains("just said"), "{d}");
    }
}

#[test]
fn an_instruction_holding_the_last_line_does_not_quote_it_again() {
    let lines = [Said::new("tutor", "Ben, would you start us off?", false)];
    let (p, d) = plan_for(
        &study(),
        "student1",
        &lines,
        2,
        Some("The moderator said: Ben, would you start us off?\nGive a brief opening statement."),
    );
    assert_eq!(p.action, Move::FollowInstruction);
    assert!(!d.contains("just said"), "{d}");
    // An instruction that does not hold it leaves the quote.
    let (_, d) = plan_for(
        &study(),
        "student1",
        &lines,
        2,
        Some("Answer in a sentence."),
    );
    assert!(
        d.starts_with("Ms. Rivera just said: “Ben, would you start us off?”"),
        "{d}"
    );
    // Nor one that quotes a later line itself (the auction's, of the line being heard).
    let (_, d) = plan_for(
        &study(),
        "student1",
        &lines,
        2,
        Some("Make your point. Ms. Rivera just said: derivatives are slopes. Speak calmly."),
    );
    assert_eq!(d.matches("just said:").count(), 1, "{d}");
}

#[test]
fn a_conductors_instruction_is_followed_not_recited() {
    let (p, d) = plan_for(
        &study(),
        "student1",
        &[],
        1,
        Some("Ask the presenter about churn."),
    );
    assert_eq!(p.action, Move::FollowInstruction);
    assert!(
        d.contains("Your task now (do not read it out): Ask the presenter about churn."),
        "{d}"
    );
}

#[test]
fn the_opening_turn_opens_on_the_first_point() {
    let (p, d) = plan_for(&study(), "tutor", &[], 1, None);
    assert_eq!(p.action, Move::Open);
    assert!(d.contains("about the slope of a tangent"), "{d}");
}

#[test]
fn counsel_rebut_the_other_side_and_the_judge_asks_then_rules() {
    let lines = [
        Said::new("defense", "Cars bring customers to the shops.", false),
        Said::new(
            "judge",
            "That assumes drivers shop more. Prosecution?",
            false,
        ),
    ];
    let (p, d) = plan_for(&debate(), "prosecution", &lines, 3, None);
    assert_eq!(p.action, Move::Rebut);
    assert_eq!(p.addressee.as_deref(), Some("Counsel for the defense"));
    assert!(d.contains("Answer Counsel for the defense directly"), "{d}");
    // The defense has not been answered since it spoke: a new argument.
    let (p, _) = plan_for(&debate(), "defense", &lines, 3, None);
    assert_eq!(p.action, Move::MakeArgument);
    // The judge rules every third line.
    let mut lines = Vec::new();
    let mut actions = Vec::new();
    for q in 1..=9u64 {
        lines.push(Said::new("defense", &format!("Argument {q}."), false));
        let (p, _) = plan_for(&debate(), "judge", &lines, q, None);
        actions.push(p.action);
        lines.push(Said::new("judge", &format!("Ruling {q}."), false));
    }
    assert_eq!(
        actions.iter().filter(|a| **a == Move::Rule).count(),
        3,
        "{actions:?}"
    );
}

#[test]
fn a_host_brings_in_who_was_heard_longest_ago() {
    let roster = vec![
        Participant::new("host", "Dana", "moderator"),
        Participant::new("expert1", "Dr. Chen", "expert"),
        Participant::new("expert2", "Prof. Adeyemi", "expert"),
        Participant::new("guest", "Sam", "guest"),
    ];
    let lines = [
        Said::new("expert1", "Hybrid works.", false),
        Said::new("guest", "My team likes Fridays at home.", false),
    ];
    let (p, d) = plan_for(&roster, "host", &lines, 4, None);
    assert_eq!(p.action, Move::AskParticipant);
    assert_eq!(p.addressee.as_deref(), Some("Prof. Adeyemi"));
    assert!(d.contains("Ask Prof. Adeyemi one short question"), "{d}");
}

#[test]
fn an_agendas_opening_line_is_kept_as_written() {
    let a =
        Agenda::parse("topic: derivatives\nopening: \" Can we start with the slope? \"\n").unwrap();
    assert_eq!(a.opening(), Some("Can we start with the slope?"));
    assert_eq!(
        Agenda::parse("topic: derivatives\n").unwrap().opening(),
        None
    );
    assert_eq!(
        Agenda::parse("topic: derivatives\nopening: ' '\n")
            .unwrap()
            .opening(),
        None
    );
}

#[test]
fn an_agenda_without_points_gets_them_from_its_topic() {
    let a = Agenda::parse("topic: remote work\n").unwrap();
    assert_eq!(a.points().len(), 5);
    assert!(a.points().iter().all(|p| p.contains("remote work")));
    assert!(matches!(
        Agenda::parse("topic: ''\n"),
        Err(AgendaError::NoTopic)
    ));
    assert!(matches!(
        Agenda::parse("- a list"),
        Err(AgendaError::Yaml(_))
    ));
}

#[test]
fn the_agenda_advances_and_wraps() {
    let a = agenda();
    assert_eq!(a.point(1), "the slope of a tangent");
    assert_eq!(a.point(TURNS_PER_POINT), "the slope of a tangent");
    assert_eq!(a.point(TURNS_PER_POINT + 1), "the power rule");
    assert_eq!(a.point(3 * TURNS_PER_POINT + 1), "the slope of a tangent");
    assert_eq!(a.point(0), "the slope of a tangent");
}

fn roles() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "tutor",
        "student",
        "judge",
        "defense",
        "prosecution",
        "moderator",
        "expert",
        "guest",
        "economist",
    ])
}

proptest! {
    /// Whatever was said, the move is one the role makes (or following an instruction,
    /// or answering the human); a human who spoke last is answered unless a conductor
    /// decided otherwise; the direction names the speaker and its role.
    #[test]
    fn moves_fit_the_role_and_the_human_comes_first(
        my_role in roles(),
        other_roles in prop::collection::vec(roles(), 1..4),
        said in prop::collection::vec((0usize..5, any::<bool>(), any::<bool>()), 0..12),
        question_id in 0u64..200,
        instructed in any::<bool>(),
    ) {
        let mut roster = vec![Participant::new("me", "Me Myself", my_role)];
        for (i, role) in other_roles.iter().enumerate() {
            roster.push(Participant::new(&format!("p{i}"), &format!("Person {i}"), role));
        }
        let lines: Vec<Said> = said
            .iter()
            .map(|(who, human, asks)| {
                let speaker = if *human { "human".to_owned() } else if *who == 0 { "me".to_owned() } else { format!("p{}", who % other_roles.len()) };
                let text = if *asks { "Why is that so?" } else { "Here is a point." };
                Said::new(&speaker, text, *human)
            })
            .collect();
        let instruction = instructed.then_some("Ask about costs.");
        let (p, d) = plan_for(&roster, "me", &lines, question_id, instruction);
        let role = RoleKind::of(my_role);
        prop_assert!(
            p.action == Move::FollowInstruction
                || p.action == Move::AnswerHuman
                || Move::of_role(role).contains(&p.action),
            "{:?} for {:?}", p.action, role
        );
        if instruction.is_some() {
            prop_assert_eq!(p.action, Move::FollowInstruction);
        } else if lines.last().is_some_and(|l| l.human) {
            prop_assert_eq!(p.action, Move::AnswerHuman);
        }
        prop_assert!(d.contains("Your turn, Me Myself."), "{}", d);
        // Only the last line is quoted, only when someone else said it, and never a
        // human's question (the prompt holds it as it is).
        let quoted = d.matches("just said:").count();
        let someone_else_spoke = lines.last().is_some_and(|l| l.speaker != "me" && !l.human)
            || (instruction.is_some() && lines.last().is_some_and(|l| l.speaker != "me"));
        prop_assert_eq!(quoted, usize::from(someone_else_spoke), "{}", d);
    }

    /// Every turn's point is on the agenda, and consecutive blocks of turns move on.
    #[test]
    fn the_agenda_moves_forward(question_id in 1u64..10_000) {
        let a = agenda();
        let now = a.point(question_id);
        prop_assert!(a.points().iter().any(|p| p == now));
        let later = a.point(question_id + TURNS_PER_POINT);
        prop_assert_ne!(now, later);
    }
}

#[test]
fn asking_turns_are_known_by_move_and_by_instruction() {
    let plan = |action| TurnPlan {
        action,
        point: String::new(),
        addressee: None,
    };
    assert!(plan(Move::AskQuestion).asks(None));
    assert!(plan(Move::CheckUnderstanding).asks(None));
    assert!(!plan(Move::AnswerQuestion).asks(None));
    let follow = plan(Move::FollowInstruction);
    assert!(follow.asks(Some(
        "The presenter answered: it sells.\nAsk the presenter one short follow-up question."
    )));
    assert!(!follow.asks(Some(
        "Where do you agree with the others? Say it in two sentences."
    )));
    // A prepared question is said as it is.
    assert!(!follow.asks(Some(
        "Ask your prepared question: \u{201c}What is the churn?\u{201d}"
    )));
    assert!(!follow.asks(None));
}

#[test]
fn the_standing_says_who_speaks_with_whom_and_how() {
    let roster = study();
    let me = roster.iter().find(|p| p.id == "tutor").unwrap();
    assert_eq!(
        standing(me, &roster),
        "You are Ms. Rivera (tutor; with you: Ben the student and Mia the student). Speak as Ms. Rivera in one or two short spoken sentences, in your own words, with something new. No greeting, no thanks, do not repeat what was already said."
    );
}
