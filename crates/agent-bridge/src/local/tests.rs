use super::*;
use text::words::is_abbreviation;

#[test]
fn prepared_words_are_the_quotes_first_two_sentences() {
    let direction = "The moderator gives you the floor on The Problem. Ask your prepared question, in one or two sentences: \u{201c}How does the robot  pick? Why now? What about drones?\u{201d}";
    assert_eq!(
        prepared_words(direction).as_deref(),
        Some("How does the robot pick? Why now?")
    );
    assert_eq!(prepared_words("Ask one short follow-up question."), None);
    assert_eq!(
        prepared_words("Mia just said: \u{201c}Cities need trams.\u{201d}\nAnswer her."),
        None
    );
    assert_eq!(prepared_words("Say \u{201c} \u{201d}"), None);
}

#[test]
fn a_bridges_window_drops_a_third_of_its_lines_at_a_time() {
    let lines: Vec<String> = (0..13).map(|i| format!("a: {i}")).collect();
    let mut w = PromptWindow::of_lines(12);
    assert_eq!(
        w.select(&lines[..12]).len(),
        8,
        "starts from the newest 12 - 4"
    );
    let mut w = PromptWindow::of_lines(12);
    w.select(&lines[..8]);
    assert_eq!(w.select(&lines[..12]).len(), 12);
    assert_eq!(w.select(&lines).len(), 8, "the oldest third went");
    let mut w = PromptWindow::of_lines(2);
    w.select(&lines[..2]);
    assert_eq!(w.select(&lines[..3]).len(), 2);
    assert_eq!(
        w.select(&lines[..4]).len(),
        1,
        "one line at a time, at least"
    );
}

#[test]
fn speaker_names_are_the_personas_and_the_common_ones_and_the_prompts() {
    let persona = crate::Persona::fallback("tutor");
    let names = speaker_names(&persona);
    assert_eq!(names[0], "tutor");
    for common in COMMON_SPEAKERS {
        assert!(names.iter().any(|n| n == common), "{common}");
    }
    let prompt = local(&["Ann: hi", " Bo : yes"], &[]);
    assert_eq!(prompt.speakers().collect::<Vec<_>>(), ["Ann", "Bo"]);
}

#[test]
fn a_prompt_drops_its_oldest_lines_until_it_fits() {
    let mut prompt = LocalPrompt {
        system: "You are Ann.".into(),
        lines: (0..10)
            .map(|i| line(&format!("Bo: line {i} of the talk")))
            .collect(),
        ..local(&[], &[])
    };
    // One token per word of the whole chat.
    let words = |chat: &[ChatMessage]| -> Result<Vec<()>, ()> {
        Ok(chat
            .iter()
            .flat_map(|m| m.content.split_whitespace())
            .map(|_| ())
            .collect())
    };
    let full = words(&prompt.to_messages(false)).unwrap().len();
    let (tokens, chat) = prompt.fit(false, full + 10, 20, words).unwrap();
    assert!(tokens.len() + 20 < full + 10, "{}", tokens.len());
    assert_eq!(chat, prompt.to_messages(false));
    assert_eq!(
        prompt.lines.last().unwrap(),
        &line("Bo: line 9 of the talk"),
        "the newest stay"
    );
    assert!(prompt.lines.len() < 10 && !prompt.lines.is_empty());
    // Nothing left to drop and no room: refused.
    let mut bare = LocalPrompt {
        system: "You are Ann, and this persona is far too long.".into(),
        ..local(&["Bo: hello"], &[])
    };
    assert!(matches!(
        bare.fit(false, 8, 20, words),
        Err(FitError::TooLong { room: 8, .. })
    ));
    assert!(bare.lines.is_empty());
    assert_eq!(
        bare.fit(false, 1_000, 20, |_| Err::<Vec<()>, _>("no template")),
        Err(FitError::Measure("no template"))
    );
}
use proptest::prelude::*;

fn names() -> Vec<String> {
    ["tutor", "Ms. Rivera", "student1", "Ben", "human"]
        .map(String::from)
        .to_vec()
}

fn run(filter: &mut OutputFilter, pieces: &[&str]) -> (String, bool) {
    let mut text = String::new();
    for p in pieces {
        let f = filter.push(p);
        text.push_str(&f.text);
        if f.stop {
            return (text, true);
        }
    }
    let f = filter.finish();
    text.push_str(&f.text);
    (text, f.stop)
}

#[test]
fn a_leading_name_tag_and_markdown_are_dropped() {
    let mut f = OutputFilter::new(names(), 40);
    let (text, _) = run(
        &mut f,
        &[
            "Ms. Rivera",
            " (tutor):",
            " **Great** question",
            ", Ben. ",
            "Let's try x",
            " squared.",
        ],
    );
    assert_eq!(text, "Great question, Ben. Let's try x squared.");
    let mut f = OutputFilter::new(names(), 40);
    let (text, _) = run(&mut f, &["[student1]: I", " think so."]);
    assert_eq!(text, "I think so.");
}

#[test]
fn a_verdict_or_a_yes_before_a_colon_is_said() {
    for raw in [
        "Partly: the cost per site is missing.",
        "Yes: the slope is six there.",
    ] {
        let mut f = OutputFilter::new(names(), 40);
        let (text, _) = run(&mut f, &[raw]);
        assert_eq!(text, raw);
    }
}

#[test]
fn labels_the_model_made_up_are_dropped_from_the_reply_s_head() {
    // Heard in a session: the tutor's own tag, then a name nobody has, or its own misspelt.
    for (raw, said) in [
        (
            "Ms. Rivera: Mia: \"Let's say we have f(x) = 3x^2. Its slope grows.",
            "Let's say we have f(x) = 3x squared. Its slope grows.",
        ),
        (
            "Mr. Rivera: The slope of the tangent line is f'(x) here.",
            "The slope of the tangent line is f'(x) here.",
        ),
        (
            "Mike: \"Let's push a toy ball up and time it.\"",
            "Let's push a toy ball up and time it.",
        ),
        // Not a label: a clause before a colon, a time.
        (
            "Think of it this way: speed is a slope.",
            "Think of it this way: speed is a slope.",
        ),
        (
            "At 3:45 the car was fastest.",
            "At 3:45 the car was fastest.",
        ),
    ] {
        let mut f = OutputFilter::new(names(), 40);
        let (text, _) = run(&mut f, &[raw]);
        assert_eq!(text, said, "{raw}");
    }
}

#[test]
fn another_speakers_line_ends_the_reply() {
    let mut f = OutputFilter::new(names(), 40);
    let (text, stop) = run(
        &mut f,
        &[
            "The derivative of x squared is two x.",
            "\nBen: ",
            "Oh I see.",
        ],
    );
    assert_eq!(text, "The derivative of x squared is two x.");
    assert!(stop);
    let mut f = OutputFilter::new(names(), 40);
    let (text, _) = run(&mut f, &["Yes, exactly.<|im_end|>", "junk"]);
    assert_eq!(text, "Yes, exactly.");
}

#[test]
fn a_whole_sentence_is_marked_as_ending_one() {
    let mut f = OutputFilter::new(names(), 40);
    let mut said = Vec::new();
    for piece in [
        "Ms. Rivera's slope at three is six. ",
        "The quotient ",
        "rule says so. ",
    ] {
        let out = f.push(piece);
        if !out.text.is_empty() {
            said.push((out.text, out.ends_sentence));
        }
    }
    // Each sentence leaves once the first word after it came, marked: the next one is
    // held until it is judged, and the voice need not wait for it.
    assert_eq!(
        said,
        [
            ("Ms. Rivera's slope at three is six. ".to_owned(), true),
            ("The quotient rule says so. ".to_owned(), true)
        ]
    );
}

#[test]
fn a_sentence_ending_at_a_line_break_leaves_before_the_next_line_is_read() {
    let mut f = OutputFilter::new(names(), 40);
    let _ = f.push("The slope of the difference quotient is the rate of change.");
    let out = f.push("\n\nNow");
    assert_eq!(
        out.text,
        "The slope of the difference quotient is the rate of change. "
    );
    assert!(out.ends_sentence);
    // The next line is still read for a speaker's tag.
    let (text, stop) = run(
        &mut f,
        &[" let", " me", " explain.", "\n", "Ben", ":", " Thanks!"],
    );
    assert_eq!(text.trim(), "Now let me explain.");
    assert!(stop);
}

/// A sentence whose head is voiced already is said to its end, but not a tail that gives
/// it to a participant as a quote (an auction debate's first line, every run).
#[test]
fn a_voiced_sentence_s_tail_that_gives_it_to_someone_is_not_said() {
    let asked = "Ben: What is the derivative of x cubed?";
    let guard = SentenceGuard::new(
        [asked],
        &["student1".to_owned(), "Ben".to_owned()],
        &["tutor".to_owned(), "Ms. Rivera".to_owned()],
    )
    .answering(asked);
    let mut f = OutputFilter::new(names(), 60).with_guard(guard);
    let (text, _) = run(
        &mut f,
        &[
            "The derivative of x cubed, at any point x, ",
            "is three x squared,\" Ms. Rivera said shortly thereafter. ",
        ],
    );
    assert_eq!(
        text.trim(),
        "The derivative of x cubed, at any point x, is three x squared,"
    );
    let refused = f.refused();
    assert!(
        refused
            .iter()
            .any(|(r, t)| *r == Refusal::Reported && t.contains("Rivera said")),
        "{refused:?}"
    );
}

#[test]
fn the_first_clause_of_an_answer_to_a_human_is_sent_at_its_comma() {
    let asked = "Ben: What is the derivative of x cubed?";
    let answering = || {
        OutputFilter::new(names(), 60)
            .with_guard(SentenceGuard::new([asked], &[], &[]).answering(asked))
    };
    let mut f = answering();
    // (The reply's first 48 characters are held to recognise a name tag.)
    assert_eq!(
        f.push("The derivative of x cubed, at any point x, ").text,
        ""
    );
    // Once its first clause is said, the rest of the sentence leaves a phrase at a time.
    let clause = f.push("is three ");
    assert_eq!(clause.text, "The derivative of x cubed, at any point x, ");
    assert!(!clause.ends_sentence, "a first clause ends no sentence");
    let rest = f.push("x squared. ");
    assert_eq!(rest.text, "is three x squared. ");
    assert!(rest.ends_sentence);
    // Later sentences wait for their end.
    assert_eq!(f.push("So at two, ").text, "");
    assert_eq!(f.push("it is twelve, ").text, "");
    // Once its first clause is said, a sentence is said to its end, past the budget
    // of words and whatever the guard would say of its rest alone.
    let mut f = OutputFilter::new(names(), 10)
        .with_guard(SentenceGuard::new([asked], &[], &[]).answering(asked));
    let (text, _) = run(
        &mut f,
        &[
            "The derivative of x cubed, at any point x along the whole real line, ",
            "is three x squared. The rest is over budget.",
        ],
    );
    assert_eq!(
        text.trim(),
        "The derivative of x cubed, at any point x along the whole real line, is three x squared."
    );
    // A clause the guard would refuse (not on the question) is held with its
    // sentence, judged whole.
    let mut f = answering();
    assert_eq!(
        f.push("Thank you so much, Ben, good that you ask, ").text,
        ""
    );
    let (text, _) = run(&mut f, &["the derivative is three x squared. "]);
    assert_eq!(
        text.trim(),
        "Thank you so much, Ben, good that you ask, the derivative is three x squared."
    );
    // Between agents, and in a turn that must ask, sentences leave whole.
    for mut f in [
        OutputFilter::new(names(), 60),
        OutputFilter::new(names(), 60).with_guard(
            SentenceGuard::new([asked], &[], &[])
                .answering(asked)
                .asking(),
        ),
    ] {
        assert_eq!(
            f.push("The derivative of x cubed, at any point x, is three ")
                .text,
            ""
        );
    }
}

#[test]
fn an_answer_without_a_comma_leaves_before_a_word_that_opens_a_phrase() {
    let asked = "Ben: What does acceleration measure?";
    let mut f = OutputFilter::new(names(), 60)
        .with_guard(SentenceGuard::new([asked], &[], &[]).answering(asked));
    let mut sent = Vec::new();
    for piece in [
        "Acceleration measures how quickly the velocity of a moving body ",
        "changes over time ",
        "and it is measured in metres per second ",
        "squared. Next one. ",
    ] {
        sent.push(f.push(piece).text);
    }
    sent.push(f.finish().text);
    // No comma: the first clause leaves before "and" (a word that opens a phrase, after
    // eight words or more), each phrase after it as it is written, and the whole reads
    // as the sentence did.
    assert_eq!(sent[..2], ["", ""]);
    assert_eq!(
        sent[2],
        "Acceleration measures how quickly the velocity of a moving body changes over time \
         and it is measured in metres per second "
    );
    assert_eq!(
        sent.concat(),
        "Acceleration measures how quickly the velocity of a moving body changes over time \
         and it is measured in metres per second squared. Next one. "
    );
    // A run-on sentence that does not take up the question is held and judged whole.
    let mut f = OutputFilter::new(names(), 60)
        .with_guard(SentenceGuard::new([asked], &[], &[]).answering(asked));
    let held = f.push("Well there is a lot to say about this topic of ours and more ");
    assert_eq!(held.text, "");
}

#[test]
fn a_sentence_repeating_the_prompt_is_not_spoken() {
    let mut f = OutputFilter::new(names(), 40)
            .with_echo_sources(
                ["The topic of this conversation: derivatives in calculus. Ask: “Why is the slope a limit?”"],
                ["Ask your question: “Why is the slope a limit?”"],
            );
    let (text, _) = run(
        &mut f,
        &[
            "Why is the slope a limit? ",
            "The topic of this conversation: derivatives",
            " in calculus. ",
            "Take x squared.",
        ],
    );
    assert_eq!(text, "Why is the slope a limit? Take x squared.");
}

#[test]
fn a_quote_closed_after_its_full_stop_ends_the_sentence() {
    // The sentence after the quote is judged on its own: a narrator's line is refused.
    let mut f = OutputFilter::new(names(), 60).with_guard(SentenceGuard::new(
        ["Ben: What is a derivative?"],
        &["Ms. Rivera".to_owned()],
        &["Ben".to_owned()],
    ));
    let (text, _) = run(
        &mut f,
        &[
            "It is a \"rate of change\" at point B.\" ",
            "Ben asked for a derivative of this function. ",
        ],
    );
    // (A closing quote never opened in the sentence is not said.)
    assert_eq!(text.trim(), "It is a \"rate of change\" at point B.");
    assert_eq!(f.refused().len(), 1, "{:?}", f.refused());
}

#[test]
fn a_sentence_without_a_word_is_not_said() {
    let mut f = OutputFilter::new(names(), 20);
    let (text, _) = run(&mut f, &["\\]"]);
    assert_eq!(text, "");
    assert!(f.refused().is_empty());
    let mut f = OutputFilter::new(names(), 20);
    let (text, _) = run(&mut f, &["Take x cubed. 1. 2."]);
    assert_eq!(text.trim(), "Take x cubed.");
}

#[test]
fn a_title_ends_no_sentence() {
    let mut f = OutputFilter::new(names(), 6);
    let (text, _) = run(
        &mut f,
        &[
            "Ms. Rivera says the slope is two. ",
            "Then more words follow here.",
        ],
    );
    assert_eq!(text.trim(), "Ms. Rivera says the slope is two.");
}

#[test]
fn the_budget_ends_at_a_sentence_end() {
    let mut f = OutputFilter::new(names(), 5);
    let pieces: Vec<String> = "One two three four five six. Seven eight nine. Ten."
        .split_inclusive(' ')
        .map(String::from)
        .collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let (text, stop) = run(&mut f, &refs);
    assert_eq!(text.trim(), "One two three four five six.");
    assert!(stop);
}

#[test]
fn a_turn_that_is_to_ask_ends_once_it_asked() {
    // A panelist's question, then what the small model wrote after it: its own answer
    // and its direction recited ("The figure for which you ask questions can be: …").
    let line = "Margins are thin. What proves the 62% margin? Manual picking costs far more. The figure for which you ask can be: 40%.";
    let pieces: Vec<String> = line.split_inclusive(' ').map(String::from).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let mut asking = OutputFilter::new(names(), 40).ending_after_question();
    let (text, stop) = run(&mut asking, &refs);
    assert_eq!(text.trim(), "Margins are thin. What proves the 62% margin?");
    assert!(stop);
    // Another turn says it all (within its budget).
    let (text, _) = run(&mut OutputFilter::new(names(), 40), &refs);
    assert!(text.contains("Manual picking"), "{text}");
}

#[test]
fn chinese_counts_two_characters_a_word_and_ends_at_its_full_stop() {
    let mut f = OutputFilter::new(names(), 10);
    // Streamed in pieces of three characters, with no space anywhere.
    let text = "我认为城市应该限制私家车。这样可以减少拥堵和污染。但是商店需要送货的通道。最后一句不该说。";
    let chars: Vec<char> = text.chars().collect();
    let pieces: Vec<String> = chars.chunks(3).map(|c| c.iter().collect()).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let (said, stop) = run(&mut f, &refs);
    // 12 characters (6 words), then 11 (6 words): the budget of 10 is spent at the
    // second full stop.
    assert_eq!(
        said.replace(' ', ""),
        "我认为城市应该限制私家车。这样可以减少拥堵和污染。"
    );
    assert!(stop);
}

#[test]
fn a_later_sentence_that_overruns_the_budget_is_dropped() {
    let said = |text: &str| {
        let mut f = OutputFilter::new(names(), 10);
        let pieces: Vec<String> = text.split_inclusive(' ').map(String::from).collect();
        let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
        run(&mut f, &refs)
    };
    // 8 + 8 words: the second sentence would end 6 past the budget of 10.
    let (text, stop) = said(
        "One two three four five six seven eight. Nine ten eleven twelve thirteen fourteen fifteen sixteen. More.",
    );
    assert_eq!(text.trim(), "One two three four five six seven eight.");
    assert!(stop);
    // 8 + 3 words: one past the budget, within the slack.
    let (text, stop) = said("One two three four five six seven eight. Nine ten eleven. Twelve.");
    assert_eq!(
        text.trim(),
        "One two three four five six seven eight. Nine ten eleven."
    );
    assert!(stop);
}

#[test]
fn a_window_grows_by_appending_and_drops_in_steps() {
    let mut w = PromptWindow::new(6, 3);
    let lines: Vec<String> = (0..20).map(|i| format!("l{i}")).collect();
    let mut previous: Vec<String> = Vec::new();
    let mut reused = 0;
    for n in 1..=20 {
        let shown = w.select(&lines[..n]);
        assert_eq!(shown.last(), lines.get(n - 1));
        assert!(shown.len() <= 6);
        if shown.starts_with(&previous) && !previous.is_empty() {
            reused += 1;
        }
        previous = shown;
    }
    // Most turns extend the previous prompt.
    assert!(reused >= 12, "{reused}");
}

#[test]
fn a_line_cut_to_what_was_heard_keeps_the_window_before_it() {
    let mut w = PromptWindow::new(6, 3);
    let mut lines: Vec<String> = (0..5).map(|i| format!("l{i}")).collect();
    assert_eq!(w.select(&lines), lines[2..]);
    // The last line was cut when the human barged in, and the human's line follows.
    lines[4] = "l4 (cut)".into();
    lines.push("human: a question".into());
    let shown = w.select(&lines);
    assert_eq!(shown, ["l2", "l3", "l4 (cut)", "human: a question"]);
    // A window whose first line is gone starts again from the newest lines.
    let lines: Vec<String> = (10..20).map(|i| format!("l{i}")).collect();
    assert_eq!(w.select(&lines), lines[7..]);
}

#[test]
fn an_opening_names_the_topic() {
    let p = LocalPrompt::new(&Prompt {
        persona: "You are Ben.".into(),
        topic: Some("limits".into()),
        ..Prompt::default()
    });
    assert_eq!(
        p.system,
        "You are Ben.\nThe topic of this conversation: limits."
    );
    let chat = p.to_messages(false);
    assert_eq!(
        chat[1].content,
        "Open our conversation about limits with one short question."
    );
}

/// A line as a transcript shows it: `Name: text`.
fn line(said: &str) -> PromptLine {
    let (speaker, text) = said.split_once(':').expect("Name: text");
    PromptLine::new(speaker.trim(), text.trim())
}

/// A prompt of the tutor's with `lines` and `requests`.
fn prompt(lines: &[&str], requests: &[&str]) -> Prompt {
    Prompt {
        persona: "You are the tutor.".into(),
        lines: lines.iter().map(|l| line(l)).collect(),
        requests: requests.iter().map(|r| r.to_string()).collect(),
        ..Prompt::default()
    }
}

fn local(lines: &[&str], requests: &[&str]) -> LocalPrompt {
    LocalPrompt::new(&prompt(lines, requests))
}

#[test]
fn a_transcript_holds_every_line_and_the_request_is_the_users_message() {
    let p = local(
        &["human: What is a derivative?", "tutor: A rate of change."],
        &["请用一句话回答。"],
    );
    assert_eq!(p.system, "You are the tutor.");
    let chat = p.to_messages(false);
    assert_eq!(chat.len(), 2);
    assert!(chat[0].content.starts_with("You are the tutor."));
    assert!(chat[0].content.contains("human: What is a derivative?"));
    // The last line is context too; the user's message is only what to do.
    assert!(chat[0].content.contains("tutor: A rate of change."));
    assert!(chat[1].content.starts_with("请用一句话回答。"));
    assert!(chat[1].content.contains("请用一句话回答。"));
    assert!(chat[1].content.ends_with("请用中文回答。"));
}

#[test]
fn a_humans_question_is_the_users_message() {
    let lines = [
        "Ben: What is a limit?",
        "human: Why is the derivative of x squared 2x?",
    ];
    let p = local(&lines, &["Answer the question directly."])
        .answering("Why is the derivative of x squared 2x?");
    let chat = p.to_messages(false);
    assert_eq!(chat.len(), 2);
    // The conversation and then the instructions are the system message...
    assert!(chat[0].content.contains("Ben: What is a limit?"));
    assert!(
        chat[0].content.ends_with("Answer the question directly."),
        "{}",
        chat[0].content
    );
    // ...and the human asks, as a user does, once: their line is not in the
    // transcript, so that the prompt before their words is the one before they spoke.
    assert_eq!(chat[1].content, "Why is the derivative of x squared 2x?");
    assert!(!chat[0].content.contains("squared"), "{}", chat[0].content);
    let before = local(&lines[..1], &[]);
    assert!(p.lines == before.lines);
    // A side request in JSON keeps its shape.
    assert!(p.to_messages(true)[1].content.contains("JSON"));
    // Blank words ask nothing.
    assert_eq!(
        local(&lines, &["Answer the question directly."])
            .answering("  ")
            .asked,
        None
    );
}

#[test]
fn a_whitespace_of_several_bytes_ends_a_word_without_a_panic() {
    let mut f = OutputFilter::new(vec![], 60);
    let mut said = f.push("Ein\u{a0}Wort\u{3000}und ").text;
    said.push_str(&f.push("noch eines.").text);
    said.push_str(&f.finish().text);
    assert!(said.contains("Wort"), "{said}");
    assert!(said.contains("noch eines."), "{said}");
}

#[test]
fn a_conductors_instruction_is_the_users_message_and_stands_once() {
    let instruction = "Probe the answer you just heard, in one short question: it sells.";
    let direction = format!(
        "Your turn, Marcus. {}",
        dialogue_planner::task_clause(instruction)
    );
    let marcus = LocalPrompt::new(&Prompt {
        persona: "You are Marcus, a skeptic.".into(),
        lines: vec![line("presenter: It sells.")],
        requests: vec![direction],
        ..Prompt::default()
    });
    let p = marcus.clone().following(instruction);
    let chat = p.to_messages(false);
    assert_eq!(chat[1].content, instruction);
    assert!(
        !chat[0].content.contains("Probe the answer"),
        "{}",
        chat[0].content
    );
    assert!(
        chat[0].content.contains(dialogue_planner::TASK_ASKED_APART),
        "{}",
        chat[0].content
    );
    // The call quoted before the task is context, not asked again.
    let call = "The moderator said: Marcus, would you start us off?\nWhat is your position?";
    let p = marcus.clone().following(call);
    assert_eq!(p.asked.as_deref(), Some("What is your position?"));
    // Nothing to follow, nothing asked.
    let p = marcus.following(" ");
    assert_eq!(p.asked, None);
}

#[test]
fn the_cache_keeps_the_shared_beginning_but_not_the_last_token() {
    assert_eq!(reusable_prefix(&[1, 2, 3, 9], &[1, 2, 3, 4, 5]), 3);
    assert_eq!(reusable_prefix(&[1, 2, 3], &[1, 2, 3]), 2);
    assert_eq!(reusable_prefix(&[], &[1]), 0);
    assert_eq!(reusable_prefix(&[5], &[]), 0);
}

#[test]
fn a_turn_started_afresh_keeps_the_last_lines_and_asks_for_a_new_point() {
    let p = LocalPrompt {
        system: "You are the judge.".into(),
        lines: (1..=6).map(|i| line(&format!("Ann: line {i}"))).collect(),
        ..local(&[], &["Rebut the last argument."])
    };
    let fresh = p.afresh("parking and bikes");
    assert_eq!(fresh.lines, [line("Ann: line 5"), line("Ann: line 6")]);
    let user = &fresh.to_messages(false)[1].content;
    assert!(user.contains("Rebut the last argument."), "{user}");
    assert!(
        user.contains("about parking and bikes that nobody gave yet"),
        "{user}"
    );
    assert!(!fresh.to_messages(false)[0].content.contains("line 4"));
}

#[test]
fn a_long_context_is_cut_at_a_line_end() {
    let context = format!("You are Marcus.\n{}", "Some knowledge line.\n".repeat(200));
    let p = LocalPrompt {
        system: context,
        ..local(&[], &["Ask your question."])
    };
    let system = &p.to_messages(false)[0].content;
    assert!(system.len() <= MAX_SYSTEM_CHARS, "{}", system.len());
    assert!(system.starts_with("You are Marcus.") && system.ends_with("line."));
}

proptest! {
    #[test]
    fn reuse_is_a_true_prefix(a in prop::collection::vec(0i32..4, 0..20), b in prop::collection::vec(0i32..4, 0..20)) {
        let n = reusable_prefix(&a, &b);
        prop_assert!(n < b.len().max(1));
        prop_assert_eq!(&a[..n], &b[..n]);
    }

    /// Whatever the model streams, the filter never emits a template tag, never more
    /// than twice the budget in words (a long first sentence), never more than the
    /// budget and its slack once a second sentence is said, and the output is the
    /// concatenation of what it returned.
    #[test]
    fn filter_output_is_bounded_and_clean(pieces in prop::collection::vec("[ a-zA-Z.:\\[\\]<|>\n*#]{0,12}", 0..60), budget in 1usize..30) {
        let mut f = OutputFilter::new(names(), budget);
        let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
        let (text, _) = run(&mut f, &refs);
        prop_assert!(!text.contains("<|"));
        prop_assert!(!text.contains('*') && !text.contains('#'));
        let words: Vec<&str> = text.split_whitespace().collect();
        prop_assert!(words.len() <= budget * 2);
        // After the first sentence, the reply ends within the budget's slack.
        // "Mr." ends no sentence.
        let first_end = words.iter().position(|w| w.ends_with('.') && !is_abbreviation(w));
        if first_end.is_some_and(|end| end + 1 < words.len()) {
            prop_assert!(words.len() <= budget + budget_slack(budget), "{text:?}");
        }
        prop_assert_eq!(text, f.emitted().to_owned());
    }

    /// With a guard, no sentence of the recent lines leaves the filter, however the
    /// model's stream is cut into pieces.
    #[test]
    fn a_recent_sentence_never_leaves_the_filter(
        // The last word ends in z: never a title such as "vs." that ends no sentence.
        recent in prop::collection::vec("[a-z]{2,6}( [a-z]{2,6}){3,8}z\\.", 1..8),
        fresh in "[q-z]{2,6}( [q-z]{2,6}){3,6}\\.",
        order in prop::collection::vec(any::<prop::sample::Index>(), 1..4),
        cut in 1usize..9,
    ) {
        let guard = SentenceGuard::new(recent.iter().map(String::as_str), &[], &[]);
        let mut f = OutputFilter::new(names(), 200).with_guard(guard);
        let mut reply = String::new();
        for pick in &order {
            let line: &String = pick.get(&recent);
            reply.push_str(line);
            reply.push(' ');
        }
        reply.push_str(&fresh);
        let chars: Vec<char> = reply.chars().collect();
        let pieces: Vec<String> = chars.chunks(cut).map(|c| c.iter().collect()).collect();
        let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
        let (text, _) = run(&mut f, &refs);
        for line in &recent {
            prop_assert!(!text.contains(line.as_str()), "{line:?} in {text:?}");
        }
        prop_assert_eq!(f.refused().len(), order.len());
    }

    /// The window always ends with the newest line and never exceeds its size.
    #[test]
    fn window_is_bounded(ops in prop::collection::vec(0u8..3, 1..60)) {
        let mut w = PromptWindow::new(8, 3);
        let mut lines: Vec<String> = Vec::new();
        for (i, op) in ops.into_iter().enumerate() {
            match op {
                0 | 1 => lines.push(format!("line {i}")),
                _ => { if let Some(last) = lines.last_mut() { last.push('x'); } }
            }
            if lines.len() > 20 { lines.remove(0); }
            let shown = w.select(&lines);
            prop_assert!(shown.len() <= 8);
            prop_assert_eq!(shown.last(), lines.last());
        }
    }
}

#[test]
fn after_a_rewind_the_sentence_sampled_again_is_said_and_may_open_with_a_tag() {
    let mut f = OutputFilter::new(names(), 40).with_echo_sources(
        ["The topic of this conversation: derivatives in calculus."],
        Vec::<&str>::new(),
    );
    let mut said = String::new();
    for piece in [
        "The topic of this conversation: derivatives",
        " in calculus. Take the ",
    ] {
        said.push_str(&f.push(piece).text);
    }
    assert_eq!(f.refused().len(), 1);
    // Back to the refused sentence's start: what followed it is dropped too.
    f.rewind(false);
    let (rest, _) = run(&mut f, &["Ben: Take", " x squared."]);
    said.push_str(&rest);
    assert_eq!(said, "Take x squared.");
}

#[test]
fn a_start_copied_from_a_recent_line_is_refused_as_it_is_written() {
    let line = "A derivative is a rate at which an object changes its position.";
    let filter = || OutputFilter::new(names(), 40).with_guard(SentenceGuard::new([line], &[], &[]));
    let copy = [
        "A ",
        "derivative ",
        "is ",
        "a ",
        "rate ",
        "at ",
        "which ",
        "the ",
        "velocity ",
        "of ",
        "an ",
        "object ",
        "changes. ",
    ];
    let mut f = filter();
    let mut said = String::new();
    let mut refused_after = None;
    for (n, piece) in copy.iter().enumerate() {
        said.push_str(&f.push(piece).text);
        if refused_after.is_none() && !f.refused().is_empty() {
            refused_after = Some(n + 1);
        }
    }
    // Refused at its seventh word (once the reply's head, held to recognise a name
    // tag, was let go), not at its end, and its rest is not said either.
    assert!(
        refused_after.is_some_and(|n| n < copy.len()),
        "{refused_after:?}"
    );
    assert_eq!(
        f.refused()[0],
        (Refusal::Echo, "A derivative is a rate at which".into())
    );
    let (rest, _) = run(&mut f, &["Then the slope tells the speed."]);
    said.push_str(&rest);
    assert_eq!(said, "Then the slope tells the speed.");
    assert_eq!(f.refused().len(), 1);

    // A start that shares words with the line but says something new goes on.
    let mut f = filter();
    let (said, _) = run(&mut f, &["A derivative is the slope of the tangent line."]);
    assert_eq!(said, "A derivative is the slope of the tangent line.");
    assert!(f.refused().is_empty());
    // After a rewind, the next sample is judged afresh.
    let mut f = filter();
    run(&mut f, &copy[..8]);
    f.rewind(false);
    let (said, _) = run(&mut f, &["Think of speed as a slope."]);
    assert_eq!(said, "Think of speed as a slope.");
}

#[test]
fn an_inline_formula_is_said_in_words() {
    for (written, said) in [
        ("$\\frac{d}{dx}(x^2)", "d over dx(x squared)"),
        ("3x^2", "3x squared"),
        ("e^x", "e to the x"),
        ("x^{n-1}$", "x to the n-1"),
        ("\\(f(x)\\)", "f(x)"),
        ("$5", "$5"),
        ("a\\cdot", "a times "),
        ("plain", "plain"),
        ("x_1", "x 1"),
        ("$2x$", "2x"),
        ("$6$", "6"),
        ("$2.5M", "$2.5M"),
        ("2^20", "2 to the 20"),
        ("e^-x", "e to the minus x"),
        ("\\lim_{h\\to0}", "the limit as h to 0"),
        // Heard as "over htag1" in a study session.
        ("{h}\\tag{1}$$", "h"),
        ("x\\label{eq:one}", "x"),
    ] {
        assert_eq!(super::spoken::spoken_math(written), said, "{written}");
    }
    // A formula over several words, as the filter meets it: word by word.
    let formula = "$\\lim_{h \\to 0} \\frac{f(x+h) - f(x)}{h}$";
    let said: Vec<String> = formula.split(' ').map(super::spoken::spoken_math).collect();
    assert_eq!(
        said.join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        "the limit as h to 0 f(x+h) - f(x) over h"
    );
    let mut f = OutputFilter::new(names(), 40);
    let (text, _) = run(
        &mut f,
        &["Use the power rule: $\\frac{d}{dx}(x^2) = 2x$, so the slope doubles."],
    );
    assert_eq!(
        text,
        "Use the power rule: d over dx(x squared) = 2x, so the slope doubles."
    );
}

#[test]
fn the_rest_of_a_refused_sentence_cut_at_a_quoted_ellipsis_is_not_said() {
    // Mia speaks; the tutor's line is recent.
    let said = |pieces: &[&str]| {
        let mut f = OutputFilter::new(names(), 60).with_guard(SentenceGuard::new(
            ["Ms. Rivera: The slope of any function is a limit."],
            &["Mia".to_owned()],
            &["Ms. Rivera".to_owned()],
        ));
        run(&mut f, pieces).0.trim().to_owned()
    };
    // Heard in a session: "makes an assumption in their conversation that …", the rest of
    // a sentence reporting the tutor's words, refused at its quote's "…\"".
    assert_eq!(
        said(&[
            "Ms. Rivera said: \"The slope of any function is a limit...\" ",
            "makes an assumption in their talk. ",
            "A slope is a rate of change at one point.",
        ]),
        "A slope is a rate of change at one point."
    );
    // After a refused sentence that ends as sentences do, one in lower case is said.
    assert_eq!(
        said(&[
            "The slope of any function is a limit. ",
            "f(x) = x squared has slope 2x.",
        ]),
        "f(x) = x squared has slope 2x."
    );
}

#[test]
fn a_sentence_sampled_again_at_a_line_start_may_be_another_speaker_s_line() {
    let mut f = OutputFilter::new(names(), 40).with_echo_sources(
        ["Yes, I'm ready for a small worked example now."],
        Vec::<&str>::new(),
    );
    let mut said = String::new();
    for piece in [
        "The", " slope", " is", " a", " limit", ".\n", "Yes", ",", " I'm", " ready", " for", " a",
        " small", " worked", " example", " now", ".", "\n",
    ] {
        said.push_str(&f.push(piece).text);
    }
    assert_eq!(f.refused().len(), 1);
    // The refused sentence began a line: so does the one sampled in its place.
    f.rewind(true);
    let (rest, stop) = run(
        &mut f,
        &["Ms", ".", " Rivera", ":", " Let", "'s", " see", "."],
    );
    said.push_str(&rest);
    assert_eq!(said.trim_end(), "The slope is a limit.");
    assert!(stop);
}

#[test]
fn the_rest_of_a_quote_a_refused_sentence_opened_is_not_said() {
    let mut f = OutputFilter::new(names(), 40);
    let (text, _) = run(
        &mut f,
        &[
            "It is six.",
            " Ms. Rivera asked: \"Is it",
            " six x squared? Or is",
            " it something different?\"",
            " I think it is six.",
        ],
    );
    assert_eq!(text.trim_end(), "It is six. I think it is six.");
    assert_eq!(f.refused().len(), 1, "{:?}", f.refused());
    // The quote's rest is kept with its refusal, for the log.
    assert!(
        f.refused()[0]
            .1
            .ends_with("Or is it something different?\""),
        "{:?}",
        f.refused()
    );
    // A refused sentence that closes its quote leaves the next one alone.
    let mut f = OutputFilter::new(names(), 40);
    let (text, _) = run(&mut f, &["Ben asked: \"Is it six?\"", " Then it is ten."]);
    assert_eq!(text.trim_end(), "Then it is ten.");
    assert_eq!(f.refused().len(), 1, "{:?}", f.refused());
}

#[test]
fn a_tag_of_part_of_a_name_in_any_case_is_dropped() {
    // A roundtable's economist opened "Dr. nadia: Let's focus …": its own name, cut and
    // in lower case, was voiced.
    let names: Vec<String> = [
        "economist",
        "Dr. Nadia Okafor",
        "engineer",
        "Tomás Lindqvist",
    ]
    .map(String::from)
    .to_vec();
    for head in [
        &["Dr", ".", " nadia", ":"][..],
        &["nadia", ":"],
        &["OKAFOR", ":"],
    ] {
        let mut f = OutputFilter::new(names.clone(), 40);
        let mut pieces = head.to_vec();
        pieces.extend([
            " Let",
            "'s",
            " focus",
            " on",
            " costs",
            ".",
            "\n\n",
            "lindqvist",
            ":",
            " No",
            ".",
        ]);
        let (text, _) = run(&mut f, &pieces);
        assert_eq!(text.trim(), "Let's focus on costs.", "{head:?}");
    }
    // A word that is no part of the name makes it no tag.
    let lower: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
    assert_eq!(strip_tag("dr. nadia: Yes.", &lower), Some(" Yes."));
    assert_eq!(strip_tag("nadia's plan: costs.", &lower), None);
    assert_eq!(strip_tag("okafor says: costs.", &lower), None);
    // One letter off a name is the name misspelt; two, or a short word, is not.
    let study: Vec<String> = ["ben", "mia", "ms. rivera"].map(String::from).to_vec();
    assert_eq!(
        strip_tag("Benn: That makes sense!", &study),
        Some(" That makes sense!")
    );
    assert_eq!(strip_tag("Ms. Riviera: Yes.", &study), Some(" Yes."));
    assert_eq!(strip_tag("Bean: Yes.", &study), Some(" Yes."));
    assert_eq!(strip_tag("Bernd: Yes.", &study), None);
    assert_eq!(strip_tag("Step: add one.", &study), None);
}

#[test]
fn a_formula_counts_as_the_words_it_is_said_in() {
    use super::spoken::spoken_words_in;
    assert_eq!(spoken_words_in("the slope doubles"), 3);
    // "f of x equals x squared": the bracket after a name and the sign are words.
    assert_eq!(spoken_words_in("f(x)=x squared"), 4);
    assert_eq!(spoken_words_in("a+b over c"), 4);
    // A bracket that opens an aside says nothing.
    assert_eq!(spoken_words_in("(for example)"), 2);
    // Chinese: one word per two characters.
    assert_eq!(spoken_words_in("导数"), 1);
}

#[test]
fn a_reply_that_ends_on_its_lead_in_does_not_say_it() {
    // Heard in a study session: the model went on to a list after the colon.
    let raw = "Ms. Rivera was indeed confusing Ben with his own terminology. Let's break it down:\n1. \"Sure\" = Ben: yes";
    let pieces: Vec<String> = raw.split_inclusive(' ').map(str::to_owned).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let mut f = OutputFilter::new(names(), 22);
    let (text, _) = run(&mut f, &refs);
    assert_eq!(
        text.trim(),
        "Ms. Rivera was indeed confusing Ben with his own terminology."
    );
    assert!(
        f.refused()
            .iter()
            .any(|(why, said)| *why == Refusal::LeadIn && said == "Let's break it down:")
    );
    // Alone, the lead-in is what the reply has: the steering holds such an end off.
    let mut alone = OutputFilter::new(names(), 22);
    let (text, _) = run(&mut alone, &["The derivative of y is equal to:"]);
    assert_eq!(text, "The derivative of y is equal to:");
    // A colon inside a sentence that ends is no lead-in.
    let mut whole = OutputFilter::new(names(), 22);
    let (text, _) = run(&mut whole, &["Yes. The rule: multiply by the power."]);
    assert_eq!(text, "Yes. The rule: multiply by the power.");
}

#[test]
fn a_formula_s_bracket_before_a_capital_ends_its_sentence() {
    // Heard in study sessions: the model left out the stop after a formula, and the
    // sentence ran on through the next one to the budget's cut.
    let raw = "We use the definition: d y by d x equals (2 over x squared) Let's take x equals 3. Then it is six.";
    let pieces: Vec<String> = raw.split_inclusive(' ').map(str::to_owned).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let mut f = OutputFilter::new(names(), 40);
    let (text, _) = run(&mut f, &refs);
    assert_eq!(
        text,
        "We use the definition: d y by d x equals (2 over x squared). Let's take x equals 3. Then it is six."
    );
    // Inside a sentence, a bracket before a small word is no end.
    let mut inside = OutputFilter::new(names(), 40);
    let (text, _) = run(&mut inside, &["The slope (the rate) is two. ", "Fine."]);
    assert_eq!(text, "The slope (the rate) is two. Fine.");
}

#[test]
fn a_line_without_a_stop_before_a_capital_ends_its_sentence() {
    // A tutor's answer in a study session, as the model wrote it.
    let raw = "You can use this function to find the derivative:\nf(x) = x^2\nThen f'(x) = 2*x\n\nThe slope at 2 is 4.";
    let pieces: Vec<String> = raw
        .split_inclusive([' ', '\n'])
        .map(str::to_owned)
        .collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let mut f = OutputFilter::new(names(), 40);
    let (text, _) = run(&mut f, &refs);
    assert_eq!(
        text,
        "You can use this function to find the derivative: f(x) = x squared. Then f'(x) = 2x. The slope at 2 is 4."
    );
    // A line that goes on in small letters, or after its colon, is one sentence.
    let mut on = OutputFilter::new(names(), 40);
    let (text, _) = run(
        &mut on,
        &["The slope is\n", "two here.\n", "It is:\n", "Two."],
    );
    assert_eq!(text, "The slope is two here. It is: Two.");
}

#[test]
fn a_list_number_after_a_colon_is_not_said() {
    let mut f = OutputFilter::new(names(), 40);
    let (text, _) = run(
        &mut f,
        &[
            "Sure, I can explain it with some specific numbers for you: 1. ",
            "The slope at x equals 0 is minus 9.",
        ],
    );
    assert_eq!(
        text,
        "Sure, I can explain it with some specific numbers for you: The slope at x equals 0 is minus 9."
    );
    // Another figure after the colon may be the answer itself.
    let mut answer = OutputFilter::new(names(), 40);
    let (text, _) = run(&mut answer, &["Yes. The slope at 3 is: 6. ", "Try 4 next."]);
    assert_eq!(text, "Yes. The slope at 3 is: 6. Try 4 next.");
}
