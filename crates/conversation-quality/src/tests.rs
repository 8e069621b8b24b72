use proptest::prelude::*;

use super::*;

fn agenda() -> Agenda {
    Agenda {
        topic: "derivatives in first-year calculus".into(),
        agenda: vec!["the power rule".into()],
        lexicon: vec!["slope".into(), "tangent".into(), "x".into()],
        conductors: Vec::new(),
        language: None,
    }
}

fn persona(name: &str, display: &str, body: &str) -> Persona {
    Persona {
        name: name.into(),
        display_name: Some(display.into()),
        instructions: body.into(),
    }
}

fn scorer() -> Scorer {
    Scorer::new(
        &agenda(),
        &[
            persona(
                "tutor",
                "Ms. Rivera",
                "You are Ms. Rivera, a patient calculus tutor leading a small spoken study session.",
            ),
            persona("student1", "Ben", "You are Ben, a curious student."),
            persona("student2", "Mia", "You are Mia, a careful student."),
        ],
    )
}

fn line(speaker: &str, text: &str) -> Utterance {
    Utterance::new(speaker, text, speaker == "human")
}

fn assess(lines: &[(&str, &str)]) -> Report {
    assess_with(&scorer(), lines)
}

/// `lines` one second apart, scored by `scorer`.
fn assess_with(scorer: &Scorer, lines: &[(&str, &str)]) -> Report {
    let lines = lines
        .iter()
        .enumerate()
        .map(|(i, (s, t))| Utterance {
            question_id: i as u64 + 1,
            start_ms: i as u64 * 1000,
            ..line(s, t)
        })
        .collect();
    scorer.assess(
        &Session {
            lines,
            events: None,
        },
        Options::default(),
    )
}

#[test]
fn a_conductors_lines_are_context_not_scored() {
    let agenda = Agenda {
        conductors: vec!["moderator".into()],
        ..agenda()
    };
    let report = assess_with(
        &Scorer::new(&agenda, &[]),
        &[
            ("human", "Why is the slope a limit?"),
            ("moderator", "Mm-hmm."),
            ("student1", "The slope is a limit of secant slopes."),
        ],
    );
    // The moderator's acknowledgement is neither an agent line nor the answer.
    assert_eq!(report.agent_lines, 1);
    assert_eq!(report.on_topic.count, 1);
    assert_eq!(report.human_answers_addressed.total, 1);
    assert_eq!(report.human_answers_addressed.count, 1);
}

#[test]
fn counts_agent_and_human_lines() {
    let r = assess(&[
        ("tutor", "The slope of the tangent line."),
        ("human", "Why?"),
        ("student1", "Because x moves."),
    ]);
    assert_eq!((r.agent_lines, r.human_lines), (2, 1));
}

#[test]
fn a_line_repeated_right_after_is_an_echo() {
    let r = assess(&[
        ("tutor", "The derivative of x squared is two x."),
        ("student1", "The derivative of x squared is two x."),
    ]);
    assert_eq!(r.echo, Ratio { count: 1, total: 2 });
    assert!(matches!(r.findings[0].reasons[0], Reason::Echo { .. }));
}

#[test]
fn an_echo_reaches_back_eight_lines_and_no_further() {
    let said = "The derivative of x squared is two x.";
    let mut lines = vec![("tutor", said)];
    let fillers: Vec<String> = (0..8).map(|i| format!("Filler number {i} here.")).collect();
    lines.extend(fillers.iter().map(|f| ("student2", f.as_str())));
    lines.push(("student1", said));
    assert_eq!(assess(&lines).echo.count, 0);
    lines.remove(1);
    assert_eq!(assess(&lines).echo.count, 1);
}

#[test]
fn the_human_counts_as_context_for_echoes() {
    let r = assess(&[
        ("human", "The slope of a curve is its derivative, right?"),
        ("tutor", "Yes, the slope of a curve is its derivative."),
    ]);
    assert_eq!(r.echo.count, 1);
}

#[test]
fn on_topic_lines_hold_a_lexicon_word() {
    let r = assess(&[
        ("tutor", "The slope is two."),
        ("student1", "I like pizza."),
        ("student2", "The power of habit."),
    ]);
    assert_eq!(r.on_topic, Ratio { count: 2, total: 3 });
}

#[test]
fn recited_instructions_are_counted() {
    let r = assess(&[
        (
            "tutor",
            "I am a patient calculus tutor leading a small group.",
        ),
        ("student1", "Here's a revised version of my answer."),
        ("student2", "The tangent touches once."),
    ]);
    assert_eq!(r.recited, 2);
}

#[test]
fn identity_slips_are_counted_for_participants_only() {
    let r = assess(&[
        ("student1", "I'm Ms. Rivera and the slope is x."),
        ("tutor", "I'm Ms. Rivera, your tutor."),
        ("student2", "My name is Ben."),
        ("tutor", "I'm Judge Okafor."),
    ]);
    assert_eq!(r.identity_slips, 2);
}

#[test]
fn answers_to_the_human_are_checked_on_the_next_agent_line() {
    let r = assess(&[
        ("human", "Why is the slope a limit?"),
        ("tutor", "Slopes of secants approach a limit."),
        ("human", "What about integrals?"),
        ("student1", "I like the tangent."),
        ("human", "Hmm, and why?"),
        ("human", "Tell me about velocity."),
    ]);
    // "Hmm, and why?" has no content word; the last question has no answer yet.
    assert_eq!(r.human_answers_addressed, Ratio { count: 1, total: 2 });
    assert!(r.findings.iter().any(|f| {
        f.reasons
            .iter()
            .any(|r| matches!(r, Reason::Unaddressed { .. }))
    }));
}

#[test]
fn a_line_cut_before_a_word_was_heard_is_not_scored() {
    let cut = |speaker: &str| Utterance {
        interrupted: true,
        ..line(speaker, "")
    };
    let lines = vec![
        line("human", "Why is the slope a limit?"),
        cut("student1"),
        line("tutor", "The slope is a limit of secant slopes."),
        Utterance {
            interrupted: true,
            ..line("student2", "The tangent")
        },
    ];
    let r = scorer().assess(
        &Session {
            lines,
            events: None,
        },
        Options::default(),
    );
    assert_eq!(r.cut_before_heard, 1);
    assert_eq!(r.agent_lines, 2, "the line cut in part is scored");
    assert_eq!(r.empty_lines, 0);
    // The first line heard after the human is its answer.
    assert_eq!(r.human_answers_addressed, Ratio { count: 1, total: 1 });
}

#[test]
fn a_human_heard_twice_in_a_row_is_one_question() {
    let r = assess(&[
        ("human", "Thanks, that helps."),
        ("human", "Why is the slope of a curve a limit?"),
        ("tutor", "The slope is a limit of secant slopes."),
    ]);
    assert_eq!(r.human_answers_addressed, Ratio { count: 1, total: 1 });
}

#[test]
fn empty_lines_and_markup_are_counted() {
    let r = assess(&[
        ("tutor", ""),
        ("student1", "..."),
        ("student2", "**Slope** is x^2."),
        ("tutor", "(smirking) The tangent."),
        ("student1", "A: the slope."),
    ]);
    assert_eq!(r.empty_lines, 2);
    assert_eq!(r.markup, 3);
}

#[test]
fn two_pleasantries_in_a_row_make_a_pair() {
    let r = assess(&[
        ("tutor", "Thank you, Ben!"),
        ("student1", "You're welcome. Great question!"),
        ("student2", "I agree."),
        ("human", "Thanks."),
        ("tutor", "Thanks!"),
    ]);
    // tutor/student1 and student1/student2; the human's line breaks the run.
    assert_eq!(r.pleasantry_pairs, 2);
}

#[test]
fn distinct_2_counts_bigrams_within_lines() {
    let r = assess(&[("tutor", "a b a b"), ("student1", "a b")]);
    // Bigrams: ab, ba, ab, ab: 2 distinct of 4.
    assert_eq!(r.distinct_2, Ratio { count: 2, total: 4 });
}

#[test]
fn skipped_lines_are_context_only() {
    let said = "The derivative of x squared is two x.";
    let lines = vec![
        Utterance {
            start_ms: 0,
            ..line("tutor", said)
        },
        Utterance {
            start_ms: 5000,
            ..line("student1", said)
        },
    ];
    let r = scorer().assess(
        &Session {
            lines,
            events: None,
        },
        Options {
            skip_before_ms: 1000,
        },
    );
    assert_eq!(r.agent_lines, 1);
    assert_eq!(r.echo.count, 1);
}

#[test]
fn turns_that_never_produced_a_line_are_silent() {
    let turn = |speaker: &str, question_id| SessionEvent::Turn {
        speaker: speaker.into(),
        question_id,
        t_ms: question_id * 100,
    };
    let lines = vec![
        Utterance {
            question_id: 1,
            ..line("tutor", "The slope.")
        },
        Utterance {
            question_id: 5,
            ..line("student2", "The tangent.")
        },
    ];
    let events = vec![
        turn("tutor", 1),
        turn("student1", 2), // silent: the floor moved on to 4
        turn("tutor", 3),    // cut by the interrupt
        SessionEvent::Interrupt { question_id: 4 },
        turn("student2", 5),
        turn("student1", 6), // still running at the end
    ];
    let r = scorer().assess(
        &Session {
            lines,
            events: Some(events),
        },
        Options::default(),
    );
    assert_eq!(r.silent_turns, Some(1));
    assert_eq!(r.empty_turns(), 1);
    assert!(
        r.findings
            .iter()
            .any(|f| f.question_id == 2 && f.reasons == [Reason::SilentTurn])
    );
}

fn words_strategy() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "slope",
            "the",
            "x",
            "thanks",
            "tangent",
            "is",
            "a",
            "I'm",
            "Ben",
            "great",
            "question",
            "*",
            "(smirking)",
            "you",
            "are",
        ]),
        0..12,
    )
    .prop_map(|w| w.join(" "))
}

fn transcript_strategy() -> impl Strategy<Value = Vec<(String, String)>> {
    prop::collection::vec(
        (
            prop::sample::select(vec!["tutor", "student1", "student2", "human"]),
            words_strategy(),
        )
            .prop_map(|(s, t)| (s.to_owned(), t)),
        0..30,
    )
}

proptest! {
    #[test]
    fn rates_stay_within_zero_and_one(transcript in transcript_strategy()) {
        let lines: Vec<(&str, &str)> =
            transcript.iter().map(|(s, t)| (s.as_str(), t.as_str())).collect();
        let r = assess(&lines);
        for ratio in [r.echo, r.on_topic, r.human_answers_addressed, r.distinct_2] {
            prop_assert!(ratio.count <= ratio.total);
            if let Some(rate) = ratio.rate() {
                prop_assert!((0.0..=1.0).contains(&rate));
            }
        }
        prop_assert_eq!(r.agent_lines + r.human_lines, lines.len());
        prop_assert!(r.recited <= r.agent_lines);
        prop_assert!(r.pleasantry_pairs < r.agent_lines.max(1));
    }

    #[test]
    fn all_distinct_words_never_echo(n in 1usize..40, len in 3usize..10) {
        let texts: Vec<String> = (0..n)
            .map(|i| (0..len).map(|j| format!("w{i}x{j}")).collect::<Vec<_>>().join(" "))
            .collect();
        let lines: Vec<(&str, &str)> = texts.iter().map(|t| ("tutor", t.as_str())).collect();
        let r = assess(&lines);
        prop_assert_eq!(r.echo.count, 0);
        prop_assert_eq!(r.distinct_2.count, r.distinct_2.total);
    }

    #[test]
    fn a_line_repeated_verbatim_is_an_echo(text in "[a-z]{1,8}( [a-z]{1,8}){2,12}") {
        let r = assess(&[("student1", text.as_str()), ("tutor", text.as_str())]);
        prop_assert!(r.echo.count >= 1);
    }
}

#[test]
fn lines_in_another_language_than_the_one_asked_are_counted() {
    let agenda = Agenda {
        language: Some("zh".into()),
        lexicon: vec!["汽车".into()],
        ..agenda()
    };
    let report = assess_with(
        &Scorer::new(&agenda, &[]),
        &[
            ("economist", "我认为应该限制汽车进入市中心。"),
            ("engineer", "I think cars should stay."),
            ("ethicist", "公平很重要, for residents."),
        ],
    );
    assert_eq!(report.in_language, Some(Ratio { count: 2, total: 3 }));
    assert_eq!(report.on_topic.count, 1);
    assert!(report.findings.iter().any(|f| {
        f.speaker == "engineer"
            && f.reasons
                .contains(&Reason::OtherLanguage { asked: "zh".into() })
    }));
    // Without a language asked, nothing is counted.
    assert_eq!(assess(&[("tutor", "你好")]).in_language, None);
}
