//! Every parser that reads outside input, as a fuzz target: `fn(&[u8])` that must
//! never panic, hang or grow without bound, whatever the bytes. The same functions run
//! coverage-guided under libFuzzer (`fuzz/`, `scripts/fuzz.sh`) and, in the test
//! command, over the corpus in `fuzz/corpus/<target>/` (tests/corpus.rs), so a crash
//! once found stays a regression test.
//!
//! Text targets read the bytes as UTF-8 with replacement: the parsers take `&str`, and
//! the nodes turn non-UTF-8 input into a warning before any parser sees it.

use std::borrow::Cow;

/// A named target.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]),
}

/// All targets, by the name of their corpus folder.
pub const TARGETS: &[Target] = &[
    Target {
        name: "policy_grammar",
        run: policy_grammar,
    },
    Target {
        name: "control_command",
        run: control_command,
    },
    Target {
        name: "sse_stream",
        run: sse_stream,
    },
    Target {
        name: "side_request",
        run: side_request,
    },
    Target {
        name: "intent_json",
        run: intent_json,
    },
    Target {
        name: "bid_mood_json",
        run: bid_mood_json,
    },
    Target {
        name: "scenario_yaml",
        run: scenario_yaml,
    },
    Target {
        name: "auction_yaml",
        run: auction_yaml,
    },
    Target {
        name: "panel_yaml",
        run: panel_yaml,
    },
    Target {
        name: "deck_markdown",
        run: deck_markdown,
    },
    Target {
        name: "phrases_markdown",
        run: phrases_markdown,
    },
    Target {
        name: "human_script",
        run: human_script,
    },
    Target {
        name: "persona",
        run: persona,
    },
    Target {
        name: "manifest",
        run: manifest,
    },
    Target {
        name: "wav",
        run: wav,
    },
    Target {
        name: "segmenter",
        run: segmenter,
    },
    Target {
        name: "voice_text",
        run: voice_text,
    },
    Target {
        name: "console_page",
        run: console_page,
    },
];

/// The target named `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

fn text(data: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// The policy grammar; a pattern that parses also runs the engine for a few turns, and
/// its printed form parses again.
pub fn policy_grammar(data: &[u8]) {
    let Ok(policy) = turn_policy::Policy::parse(&text(data)) else {
        return;
    };
    let printed = policy.to_string();
    assert!(
        turn_policy::Policy::parse(&printed).is_ok(),
        "the printed form of a parsed pattern must parse: {printed:?}"
    );
    let mut engine = turn_policy::PolicyEngine::new(policy, &[] as &[&str]);
    let _ = engine.viability();
    for _ in 0..8 {
        if engine.next_turn().is_none() {
            break;
        }
        engine.finish_turn();
    }
    let _ = engine.stats(0).to_json();
}

pub fn control_command(data: &[u8]) {
    let _ = voice_protocol::ControlCommand::parse(&text(data));
}

/// The SSE parser fed in pieces (the first byte picks the piece size), each event's data
/// read as a chat-completion chunk.
pub fn sse_stream(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let piece = usize::from(first % 64) + 1;
    let mut parser = agent_bridge::openai::SseParser::with_limit(4096);
    let mut events = Vec::new();
    for chunk in rest.chunks(piece) {
        match parser.push(chunk) {
            Ok(mut new) => events.append(&mut new),
            Err(_) => return,
        }
    }
    events.extend(parser.finish());
    for event in events {
        if let agent_bridge::openai::SseEvent::Data(data) = event {
            let _ = agent_bridge::openai::parse_chunk(&data);
        }
    }
}

pub fn side_request(data: &[u8]) {
    let _ = agent_bridge::SideRequest::parse(&text(data));
}

pub fn intent_json(data: &[u8]) {
    let _ = moderator_core::intent::parse_intent("expert", &text(data));
}

pub fn bid_mood_json(data: &[u8]) {
    let text = text(data);
    let _ = auction_core::parse_bid(&text);
    let _ = auction_core::parse_mood(&text);
    let _ = auction_core::parse_segment_payload(&text);
    let _ = auction_core::sanitize_spoken(&text, 40);
}

pub fn scenario_yaml(data: &[u8]) {
    let _ = moderator_core::scenario::Scenario::from_yaml(&text(data));
}

pub fn auction_yaml(data: &[u8]) {
    let _ = auction_core::AuctionConfig::from_yaml(&text(data));
}

pub fn panel_yaml(data: &[u8]) {
    let _ = rehearsal_core::config::PanelConfig::from_yaml(&text(data));
}

pub fn deck_markdown(data: &[u8]) {
    let _ = rehearsal_core::Deck::parse(&text(data));
}

/// The conductors' one phrase format, as the rehearsal and the roundtable read it.
pub fn phrases_markdown(data: &[u8]) {
    let text = text(data);
    let _ = rehearsal_core::PhraseLibrary::parse(&text);
    let (roundtable, _) = moderator_core::phrases::RoundtablePhrases::parse(&text);
    // Whatever a file holds, every line still fills without a brace left.
    let line = roundtable.closing(moderator_core::Language::Zh, &["a", "b"]);
    assert!(!line.contains("{names}"), "{line}");
}

pub fn human_script(data: &[u8]) {
    let text = text(data);
    let _ = human_script::parse_script(&text);
    let _ = human_script::presenter::parse_presenter_script(&text);
}

/// Persona front matter (a template's `persona.md`) and a bridge's TOML persona.
pub fn persona(data: &[u8]) {
    let text = text(data);
    let agent = agent_context::AgentName::new("tutor").expect("a valid agent name");
    if let Ok(template) = agent_context::PersonaTemplate::parse(&text, &agent) {
        let _ = agent_bridge::Persona::from_toml(&template.to_persona_toml());
    }
    let _ = agent_bridge::Persona::from_toml(&text);
}

pub fn manifest(data: &[u8]) {
    let _ = agent_context::Manifest::parse(&text(data));
}

pub fn wav(data: &[u8]) {
    if let Ok(pcm) = audio_utils::decode_wav(data) {
        let _ = audio_utils::resample(&pcm.samples, pcm.sample_rate.max(1), 16_000);
    }
}

/// The segmenter fed a stream: `\x01` ends a turn, `\x02` is an interrupt, `\x03` starts
/// the next turn; the rest is text in pieces.
pub fn segmenter(data: &[u8]) {
    use conductor::Core;
    use text_segmenter::{SegmenterConfig, SegmenterCore, SegmenterInput};
    use voice_protocol::StreamStatus;
    let text = text(data);
    let _ = text_segmenter::sanitize(&text);
    let mut core = SegmenterCore::new(SegmenterConfig::default());
    let mut question_id = 1;
    let mut status = Some(StreamStatus::Started);
    for piece in text.split_inclusive(['\u{1}', '\u{2}', '\u{3}']) {
        let (body, mark) = match piece.chars().last() {
            Some(c @ ('\u{1}' | '\u{2}' | '\u{3}')) => (&piece[..piece.len() - 1], Some(c)),
            _ => (piece, None),
        };
        let ends = mark == Some('\u{1}');
        let _ = core.handle(
            SegmenterInput::Text {
                speaker: "tutor".into(),
                question_id,
                text: body.to_owned(),
                status: if ends {
                    Some(StreamStatus::Ended)
                } else {
                    status
                },
                // A writer's word on sentence ends is a hint the splitter must survive.
                ends_sentence: body.len() % 2 == 1,
            },
            0,
        );
        status = Some(StreamStatus::Ongoing);
        match mark {
            Some('\u{2}') => {
                question_id += 1;
                let _ = core.handle(SegmenterInput::Interrupt { question_id }, 0);
            }
            Some('\u{1}' | '\u{3}') => {
                question_id += 1;
                status = Some(StreamStatus::Started);
            }
            _ => {}
        }
    }
}

/// Text on its way to a voice: the player's neutralising and cutting into pieces.
pub fn voice_text(data: &[u8]) {
    let text = text(data);
    let clean = player_core::voice_text::sanitize(&text);
    assert!(
        !clean.contains("[["),
        "espeak-ng phoneme escapes must not survive: {clean:?}"
    );
    assert!(
        !player_core::voice_text::holds_markup(&clean),
        "no markup tag or control character may survive: {clean:?}"
    );
    let _ = player_core::voice_text::plan_with(&text, 64, 4096);
}

/// What a console page sends: its JSON messages and audio frames, and the status it shows.
pub fn console_page(data: &[u8]) {
    let text = text(data);
    let _ = console_core::page::parse_client(&text);
    let _ = console_core::page::decode_audio(data);
    let _ = console_core::shares::parse_status(&text);
}
