use std::time::Duration;

use agent_bridge::Prompt;
use voice_protocol::messages::PrepareFor;

use super::*;

fn config() -> LocalConfig {
    LocalConfig {
        model_path: Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(SMALL_MODEL),
        threads: 1,
        batch_threads: 1,
        context_tokens: 2048,
        max_tokens: 400,
        max_words: 300,
        temperature: 0.7,
        seed: 7,
        window_lines: 12,
        prefix_reuse: true,
        participants: 1,
    }
}

fn request(question_id: u64, ask: &str) -> GenerationRequest {
    GenerationRequest {
        question_id,
        prompt: Prompt {
            persona: "You are Ms. Rivera, a patient calculus tutor.".into(),
            lines: vec![PromptLine::new("human", ask)],
            ..Prompt::default()
        },
        ..GenerationRequest::default()
    }
}

const WAIT: Duration = Duration::from_secs(120);

/// A cancel mid-stream: not one chunk after it, no `Finished`, and the next request
/// is answered in full.
#[test]
fn a_cancel_mid_stream_leaves_nothing_after_it() {
    let backend = LocalBackend::load(config(), Persona::fallback("tutor")).expect("model");
    let (tx, rx) = crossbeam_channel::unbounded();
    let cancel = backend.start(
        request(1, "Tell me everything about derivatives, at length."),
        History::new(4),
        tx.clone(),
    );
    let first = rx.recv_timeout(WAIT).expect("a first chunk");
    assert!(matches!(first, BackendEvent::Chunk { question_id: 1, .. }));
    cancel();
    // The worker may have been past its check for one token when the cancel came.
    let mut late = 0;
    let _keep_running = backend.start(request(2, "What is a derivative?"), History::new(4), tx);
    let mut second = String::new();
    loop {
        match rx.recv_timeout(WAIT).expect("the next request runs") {
            BackendEvent::Chunk { question_id: 1, .. } => late += 1,
            BackendEvent::Finished { question_id: 1, .. } => {
                panic!("a cancelled generation must not finish")
            }
            BackendEvent::Chunk {
                question_id: 2,
                text,
                ..
            } => second.push_str(&text),
            BackendEvent::Finished {
                question_id: 2,
                error,
            } => {
                assert_eq!(error, None);
                break;
            }
            other => panic!(
                "unexpected event for another question: {}",
                describe(&other)
            ),
        }
    }
    assert!(late <= 1, "{late} chunks after the cancel");
    assert!(!second.trim().is_empty());
}

/// Runs `request` to its end; returns the figures of the generation.
fn finish(backend: &LocalBackend, request: GenerationRequest) -> GenerationStats {
    let (tx, rx) = crossbeam_channel::unbounded();
    let question_id = request.question_id;
    let _cancel = backend.start(request, History::new(4), tx);
    loop {
        match rx.recv_timeout(WAIT).expect("the turn ends") {
            BackendEvent::Finished { question_id: q, .. } if q == question_id => break,
            _ => {}
        }
    }
    backend.last_stats().expect("figures of the turn")
}

/// Prefilled while the human speaks, the answer reads only what came after: the
/// human's line and the turn's direction.
#[test]
fn a_prefilled_conversation_is_not_read_again_by_the_answer() {
    use agent_bridge::{BridgeCore, BridgeInput, BridgeOutput, Entry};
    let answer_after = |prefill: bool, config: LocalConfig| {
        let backend = LocalBackend::load(config, Persona::fallback("tutor")).expect("model");
        let mut core = BridgeCore::new(Persona::fallback("tutor"), None, 50);
        for (i, (who, text)) in [
            (
                "student1",
                "What does the derivative of a function tell us?",
            ),
            (
                "tutor",
                "It tells us how fast the function changes at each point.",
            ),
            (
                "student2",
                "So the slope of the tangent line is the derivative?",
            ),
        ]
        .into_iter()
        .enumerate()
        {
            core.decide(BridgeInput::Utterance(Entry::new(who, text, i as u64 + 1)));
        }
        if prefill {
            let out = core.decide(BridgeInput::Prepare {
                speaker: "tutor".into(),
                ahead_of: PrepareFor::Answer,
            });
            let [BridgeOutput::Prefill(request)] = &out[..] else {
                panic!("{out:?}")
            };
            backend.prefill(request.clone());
        }
        let mut human = Entry::new("human", "Can you show me one with numbers?", 4);
        human.human = true;
        core.decide(BridgeInput::Utterance(human));
        let out = core.decide(BridgeInput::Turn {
            speaker: "tutor".into(),
            question_id: 5,
            instruction: None,
            context: None,
            prepared: None,
            takes_up: None,
            asks: false,
            answers_human: false,
        });
        let [BridgeOutput::Generate(request)] = &out[..] else {
            panic!("{out:?}")
        };
        finish(&backend, request.clone())
    };
    let cold = answer_after(false, config());
    let warm = answer_after(true, config());
    assert_eq!(cold.prompt_tokens, warm.prompt_tokens);
    assert_eq!(cold.reused_tokens, 0);
    // Only the human's words and the template's frame around them are left to read.
    let unread = warm.prompt_tokens - warm.reused_tokens;
    assert!(
        unread * 5 < warm.prompt_tokens,
        "read again: {unread} of {} tokens",
        warm.prompt_tokens
    );
}

#[test]
fn a_missing_or_foreign_file_is_named_with_the_fix() {
    let mut c = config();
    c.model_path = PathBuf::from("/nonexistent/model.gguf");
    let e = LocalBackend::load(c, Persona::fallback("tutor"))
        .err()
        .expect("an error")
        .to_string();
    assert!(
        e.contains("/nonexistent/model.gguf") && e.contains("scripts/setup.sh"),
        "{e}"
    );
    let bad = std::env::temp_dir().join(format!("not-a-model-{}.gguf", std::process::id()));
    std::fs::write(&bad, b"<html>not found</html>").unwrap();
    let mut c = config();
    c.model_path = bad.clone();
    let e = LocalBackend::load(c, Persona::fallback("tutor"))
        .err()
        .expect("an error")
        .to_string();
    std::fs::remove_file(&bad).unwrap();
    assert!(e.contains("not a GGUF model file"), "{e}");
}

fn describe(event: &BackendEvent) -> String {
    match event {
        BackendEvent::Chunk {
            question_id, text, ..
        } => format!("chunk {question_id} {text:?}"),
        BackendEvent::Finished { question_id, error } => {
            format!("finished {question_id} {error:?}")
        }
    }
}

/// A request with the conversation `lines` (`(speaker, text)`) and a direction.
fn conversation(question_id: u64, lines: &[(&str, &str)]) -> GenerationRequest {
    GenerationRequest {
        question_id,
        prompt: Prompt {
            persona: "You are Ms. Rivera, a patient calculus tutor.".into(),
            lines: lines
                .iter()
                .map(|(who, text)| PromptLine::new(*who, *text))
                .collect(),
            requests: vec!["give one example.".into()],
            ..Prompt::default()
        },
        max_words: Some(12),
        ..GenerationRequest::default()
    }
}

const LINES: [(&str, &str); 6] = [
    (
        "student1",
        "What does the derivative of a function tell us about its graph?",
    ),
    (
        "tutor",
        "It tells us how fast the function changes at each point of the graph.",
    ),
    (
        "student2",
        "So the slope of the tangent line at a point is the derivative there?",
    ),
    (
        "tutor",
        "Yes, and where the slope is zero the graph is flat for a moment.",
    ),
    (
        "student1",
        "Does that mean a maximum or a minimum is where the derivative is zero?",
    ),
    (
        "student2",
        "Could a flat point be neither, like the middle of x cubed at zero?",
    ),
];

/// Runs `job` for `participant` on `host` to its end; returns what it said.
fn say(host: &ModelHost, participant: &str, request: GenerationRequest) -> String {
    let (tx, rx) = crossbeam_channel::unbounded();
    let job = HostJob {
        persona: Persona::fallback(participant),
        priority: request.priority(),
        request,
        prefill: false,
        whole: false,
    };
    let _cancel = host.submit(participant, job, tx);
    let mut said = String::new();
    loop {
        match rx.recv_timeout(WAIT).expect("the request ends") {
            BackendEvent::Chunk { text, .. } => said.push_str(&text),
            BackendEvent::Finished { error, .. } => {
                assert_eq!(error, None);
                return said;
            }
        }
    }
}

/// One model, two participants at once: what one says is exactly what it says alone;
/// the other's tokens never reach its sequence.
#[test]
fn sequences_never_read_each_others_tokens() {
    let config = LocalConfig {
        participants: 2,
        ..config()
    };
    let alone = {
        let host = ModelHost::load(config.clone()).expect("model");
        say(&host, "tutor", conversation(3, &LINES[..4]))
    };
    let host = ModelHost::load(config).expect("model");
    let together = std::thread::scope(|scope| {
        let other = scope.spawn(|| say(&host, "student1", conversation(2, &LINES[2..])));
        let tutor = say(&host, "tutor", conversation(3, &LINES[..4]));
        assert!(!other.join().unwrap().is_empty());
        tutor
    });
    assert!(!alone.trim().is_empty());
    assert_eq!(alone, together);
}

/// `participant`'s last request read less than a third of its prompt: the rest was kept
/// from the cache.
fn read_a_third_at_most(host: &ModelHost, participant: &str) {
    let stats = host.last_stats(participant).expect("figures");
    let read = stats.prompt_tokens - stats.reused_tokens;
    assert!(
        read * 3 < stats.prompt_tokens,
        "read {read} of {} tokens",
        stats.prompt_tokens
    );
}

/// When the window of lines moves, the lines that stay are shifted in the cache, not
/// read again: only the new line and the direction are read.
#[test]
fn a_moving_window_reads_only_the_new_line() {
    let config = LocalConfig {
        window_lines: 4,
        ..config()
    };
    let host = ModelHost::load(config).expect("model");
    say(&host, "tutor", conversation(1, &LINES[..4]));
    say(&host, "tutor", conversation(2, &LINES[..5]));
    read_a_third_at_most(&host, "tutor");
}

/// A side request shows the lines the participant's turns show, whoever used the side
/// requests' sequence before: it reads only the new line and the request, not the
/// conversation again.
#[test]
fn a_side_request_reads_only_what_the_participants_turn_did_not() {
    let config = LocalConfig {
        window_lines: 6,
        participants: 2,
        ..config()
    };
    let host = ModelHost::load(config).expect("model");
    say(&host, "tutor", conversation(1, &LINES[..4]));
    // Another participant's side request leaves the side requests' sequence showing
    // other lines than the tutor's window.
    say(&host, "student1", conversation(0, &LINES[2..]));
    say(&host, "tutor", conversation(0, &LINES[..5]));
    read_a_third_at_most(&host, "tutor");
}

/// A participant whose cache holds its persona alone when a conductor's context comes with
/// a side request keeps that request's reading: its next turn, in the context, reads only
/// what is new.
#[test]
fn a_side_request_in_a_new_context_is_kept_for_the_next_turn() {
    let host = ModelHost::load(config()).expect("model");
    say(&host, "tutor", conversation(1, &LINES[..4]));
    let in_context = |question_id, lines: &[(&str, &str)]| {
        let mut request = conversation(question_id, lines);
        request.prompt.persona = "The session: a calculus class on derivatives. You are Ms. \
            Rivera, who teaches it; the students are Ben and Mia."
            .into();
        request
    };
    say(&host, "tutor", in_context(0, &LINES[..4]));
    say(&host, "tutor", in_context(2, &LINES[..5]));
    read_a_third_at_most(&host, "tutor");
}

/// A side request asked before the participant's first turn (a panel asked for questions
/// as the session starts) leaves its reading to that turn.
#[test]
fn a_side_request_before_any_turn_is_kept_for_the_first() {
    let host = ModelHost::load(config()).expect("model");
    say(&host, "tutor", conversation(0, &LINES[..4]));
    say(&host, "tutor", conversation(1, &LINES[..5]));
    read_a_third_at_most(&host, "tutor");
}

/// A read-ahead that waits at the gate behind another participant's turn gives way and
/// lets its own turn through; nothing hangs.
#[test]
fn a_read_ahead_waiting_behind_a_turn_never_blocks_the_model() {
    let config = LocalConfig {
        participants: 2,
        max_words: 40,
        ..config()
    };
    let host = ModelHost::load(config).expect("model");
    std::thread::scope(|scope| {
        let tutor = scope.spawn(|| say(&host, "tutor", conversation(3, &LINES)));
        let (events, _) = crossbeam_channel::unbounded();
        let mut ahead = conversation(4, &LINES[..5]);
        ahead.question_id = 0;
        let _ = host.submit(
            "student1",
            HostJob {
                persona: Persona::fallback("student1"),
                priority: Priority::ReadAlong,
                request: ahead,
                prefill: true,
                whole: false,
            },
            events,
        );
        let student = say(&host, "student1", conversation(4, &LINES));
        assert!(!tutor.join().unwrap().is_empty());
        assert!(!student.is_empty());
    });
}

/// A reading ahead asked while the participant's own turn was in line (a prediction of
/// the conversation before that turn's end), with the participant's next request behind
/// it by the time it could begin, is skipped: the request finds what the turn left in
/// the cache, not a stale prediction read over it.
#[test]
fn a_reading_ahead_asked_behind_a_turn_gives_way_to_the_next_request() {
    let config = LocalConfig {
        participants: 1,
        max_words: 20,
        ..config()
    };
    let host = ModelHost::load(config).expect("model");
    let (events, _kept) = crossbeam_channel::unbounded();
    let job = |request: GenerationRequest, prefill: bool| HostJob {
        persona: Persona::fallback("tutor"),
        priority: request.priority(),
        request,
        prefill,
        whole: false,
    };
    // The host claims requests in the order they come: the reading ahead and the next
    // request are in line (microseconds apart) while the turn still reads its prompt.
    let _turn = host.submit(
        "tutor",
        job(conversation(3, &LINES[..4]), false),
        events.clone(),
    );
    let stale = conversation(0, &[("student2", "Pasta, rain and the price of bread.")]);
    let _ = host.submit("tutor", job(stale, true), events);
    let said = say(&host, "tutor", conversation(5, &LINES[..5]));
    assert!(!said.is_empty());
    let stats = host.last_stats("tutor").expect("figures of the request");
    assert!(
        stats.reused_tokens * 2 > stats.prompt_tokens,
        "the stale reading was read over the turn's cache: {stats:?}"
    );
}

/// A reading ahead interrupted by another participant's turn keeps what it read and
/// reads the rest once that turn is over: its own turn, when it comes, reads one token.
#[test]
fn a_reading_ahead_interrupted_by_a_turn_is_taken_up_again() {
    let config = LocalConfig {
        participants: 2,
        max_words: 20,
        ..config()
    };
    let host = ModelHost::load(config).expect("model");
    let (events, _kept) = crossbeam_channel::unbounded();
    let _ = host.submit(
        "student2",
        HostJob {
            persona: Persona::fallback("student2"),
            priority: Priority::ReadAlong,
            request: conversation(9, &LINES),
            prefill: true,
            whole: true,
        },
        events,
    );
    // The turn comes while the reading reads: the reading gives way to it.
    assert!(!say(&host, "student1", conversation(4, &LINES)).is_empty());
    assert!(!say(&host, "student2", conversation(9, &LINES)).is_empty());
    let stats = host.last_stats("student2").expect("figures of the turn");
    assert_eq!(stats.prompt_tokens - stats.reused_tokens, 1, "{stats:?}");
}

/// Read ahead when the last line was heard by the participant foretold the next turn,
/// the turn that follows reads one token.
#[test]
fn a_turn_read_ahead_reads_one_token_when_it_comes() {
    use agent_bridge::{BridgeCore, BridgeInput, BridgeOutput, Entry};
    let backend = LocalBackend::load(config(), Persona::fallback("tutor")).expect("model");
    let mut core = BridgeCore::new(Persona::fallback("tutor"), None, 50).with_read_along(true);
    core.decide(BridgeInput::Prepare {
        speaker: "tutor".into(),
        ahead_of: PrepareFor::Turn,
    });
    for (i, (who, text)) in LINES[..3].iter().enumerate() {
        for output in core.decide(BridgeInput::Utterance(Entry::new(who, text, i as u64 + 1))) {
            if let BridgeOutput::ReadAhead(request) = output {
                backend.read_ahead(request);
            }
        }
    }
    let out = core.decide(BridgeInput::Turn {
        speaker: "tutor".into(),
        question_id: 4,
        instruction: None,
        context: None,
        prepared: None,
        takes_up: None,
        asks: false,
        answers_human: false,
    });
    let [BridgeOutput::Generate(request)] = &out[..] else {
        panic!("{out:?}")
    };
    let stats = finish(&backend, request.clone());
    assert_eq!(stats.prompt_tokens - stats.reused_tokens, 1, "{stats:?}");
}

/// Runs `request` on `backend` to its end; returns what it said (an error fails the test).
fn said(backend: &LocalBackend, request: GenerationRequest) -> String {
    let (tx, rx) = crossbeam_channel::unbounded();
    let _cancel = backend.start(request, History::new(4), tx);
    let mut text = String::new();
    loop {
        match rx.recv_timeout(WAIT).expect("the answer comes") {
            BackendEvent::Chunk { text: chunk, .. } => text.push_str(&chunk),
            BackendEvent::Finished { error, .. } => {
                assert_eq!(error, None, "{text}");
                return text;
            }
        }
    }
}

/// A side request whose answer must open with a verdict: the model is held to one of the
/// words while sampling (the small model, asked plainly, opens otherwise as often as not).
#[test]
fn a_reply_held_to_open_with_a_verdict_opens_with_one() {
    let backend = LocalBackend::load(config(), Persona::fallback("skeptic")).expect("model");
    let verdicts = ["Answered", "Partly", "Dodged"];
    for (n, answer) in ["Our margin is 40 percent.", "We have a great team."]
        .iter()
        .enumerate()
    {
        let mut rating = request(
            0,
            &format!(
                "Your question was: what is your margin? The presenter's answer: {answer} \
                 Rate the answer: answered, partly or dodged, then why."
            ),
        );
        rating.opens_with = verdicts.iter().map(|v| v.to_string()).collect();
        rating.max_words = Some(30);
        let text = said(&backend, rating);
        assert!(
            verdicts.iter().any(|v| text.trim_start().starts_with(v)),
            "{n}: {text:?}"
        );
    }
}

#[test]
fn the_opening_grammar_lists_the_words_escaped() {
    let grammar = sampling::opening_grammar(&["Answered".into(), "Say \"no\"".into()]);
    assert_eq!(grammar, r#"root ::= ("Answered" | "Say \"no\"") [^\n]*"#);
}

/// A side request that names what to take up (a slide, for a question that challenges
/// it) is answered with a question that takes up one of its words: quoting the slide is
/// no recital of the prompt.
#[test]
fn a_question_asked_to_take_up_a_slide_takes_up_its_words() {
    let backend = LocalBackend::load(config(), Persona::fallback("skeptic")).expect("model");
    for slide in [
        "Robots-as-a-service at $2,500 per robot per month. Gross margin of 62% at 50 robots, \
         payback in 9 months.",
        "Mid-size warehouses lose margin to manual picking: picking is 55% of labour cost, and \
         staff turnover runs above 40% a year.",
    ] {
        let mut question = request(
            0,
            &format!(
                "Prepare one sharp question about this slide that takes up one of its claims \
                 or figures and asks what would prove it: {slide}"
            ),
        );
        question.max_words = Some(30);
        question.takes_up = Some(slide.to_owned());
        let text = said(&backend, question);
        assert!(
            agent_bridge::local::steer::takes_up(slide, &text),
            "{text:?} takes up nothing of {slide:?}"
        );
    }
}
