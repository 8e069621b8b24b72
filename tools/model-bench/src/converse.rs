//! `model-bench converse FORMAT TURNS [GGUF] [OUT_DIR]`: a text-only conversation of the
//! embedded model with itself, in the shape of a shipped dataflow (`study`, `debate`,
//! `panel`, `roundtable`, `rehearsal`, `auction`), through the bridges' own planning,
//! prompting and filtering: a fast way to read
//! and measure what the participants say without speech. Prints the transcript and, with
//! OUT_DIR, writes `OUT_DIR/transcript.jsonl` for `conversation-quality`.

use std::{
    io::Write,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use agent_bridge::{BridgeCore, BridgeInput, BridgeOutput, Entry, Persona};
use dialogue_planner::{Agenda, Participant};
use eyre::{Context, bail, eyre};
use llm_bridge::{
    backend::{Backend, BackendEvent},
    local::LocalBackend,
};

mod formats;

use formats::{Step, format};

fn persona(root: &Path, name: &str) -> eyre::Result<Persona> {
    let path = root.join("templates").join(name).join("persona.md");
    let text = std::fs::read_to_string(&path).with_context(|| format!("{}", path.display()))?;
    let agent = agent_context::AgentName::new(name).map_err(|e| eyre!("{e}"))?;
    let template =
        agent_context::PersonaTemplate::parse(&text, &agent).map_err(|e| eyre!("{e}"))?;
    Persona::from_toml(&template.to_persona_toml()).map_err(|e| eyre!("{e}"))
}

pub fn converse(
    root: &Path,
    format_name: &str,
    turns: usize,
    model: &Path,
    out: Option<PathBuf>,
) -> eyre::Result<()> {
    let format = format(format_name)?;
    let agenda_text = std::fs::read_to_string(root.join(format.agenda))?;
    let agenda = Agenda::parse(&agenda_text).map_err(|e| eyre!("{e}"))?;
    let personas: Vec<Persona> = format
        .participants
        .iter()
        .map(|p| persona(root, p))
        .collect::<eyre::Result<_>>()?;
    let roster: Vec<Participant> = personas
        .iter()
        .map(|p| Participant::new(&p.name, p.spoken_name(), &p.role))
        .collect();
    let mut seats = Vec::new();
    for p in &personas {
        let config = crate::bench_config(model, true)?;
        let backend = LocalBackend::load(config, p.clone())?;
        let others = roster.iter().filter(|r| r.id != p.name).cloned().collect();
        let core = BridgeCore::new(p.clone(), Some(agenda.topic().to_owned()), 60)
            .with_plan(others, Some(agenda.clone()));
        seats.push((p.name.clone(), core, backend));
    }
    let transcript = match &out {
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            Some(std::fs::File::create(dir.join("transcript.jsonl"))?)
        }
        None => None,
    };
    let mut question_id = 0u64;
    let mut last = String::new();
    let mut written = Written {
        file: transcript,
        clock_ms: 0,
    };
    // The line sounding while the next turn is asked (the auction's way).
    let mut sounding: Option<(String, String, u64)> = None;
    let started = Instant::now();
    let mut step = 0;
    for turn in 0..turns {
        // A conducted session: scripted lines up to the next call, then the call.
        let mut instruction = None;
        let speaker = if format.script.is_empty() {
            if let Some((_, line)) = format.human.iter().find(|(at, _)| *at == turn) {
                question_id += 1;
                speak(&mut seats, &mut written, "human", line, question_id, true)?;
                last = "human".to_owned();
            }
            (format.next)(turn, &last)
        } else {
            loop {
                let next = &format.script[step % format.script.len()];
                step += 1;
                match next {
                    Step::Say {
                        speaker,
                        text,
                        human,
                    } => {
                        question_id += 1;
                        speak(&mut seats, &mut written, speaker, text, question_id, *human)?;
                    }
                    Step::Call {
                        speaker,
                        instruction: call,
                    } => {
                        instruction = Some(call.to_string());
                        break *speaker;
                    }
                }
            }
        };
        if format.quotes_the_line_heard {
            let heard = sounding
                .as_ref()
                .filter(|(who, _, _)| who != speaker)
                .map(|(who, text, _)| format!("{who} {} {}. ", dialogue_planner::QUOTE_MARK, text));
            instruction = Some(auction_instruction(
                speaker,
                turn,
                heard.unwrap_or_default(),
            ));
        }
        question_id += 1;
        let seat = seats
            .iter_mut()
            .find(|(name, _, _)| name == speaker)
            .ok_or_else(|| eyre!("no seat for {speaker}"))?;
        let outputs = seat.1.decide(BridgeInput::Turn {
            speaker: speaker.to_owned(),
            question_id,
            instruction,
            context: None,
            prepared: None,
            takes_up: None,
            asks: false,
            answers_human: false,
        });
        let request = outputs.iter().find_map(|o| match o {
            BridgeOutput::Generate(r) => Some(r.clone()),
            _ => None,
        });
        let Some(request) = request else {
            // Said without the model: the agenda's opening line.
            let said: String = outputs
                .iter()
                .filter_map(|o| match o {
                    BridgeOutput::Text { text, .. } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            if said.trim().is_empty() {
                bail!("{speaker} did not take turn {question_id}");
            }
            eprintln!("  (the agenda's opening line)");
            speak(
                &mut seats,
                &mut written,
                speaker,
                said.trim(),
                question_id,
                false,
            )?;
            last = speaker.to_owned();
            continue;
        };
        let action = request.plan.as_ref().map_or("-", |p| p.action.as_str());
        if std::env::var_os("CONVERSE_SHOW_PROMPT").is_some() {
            let prompt = agent_bridge::reply::ReplyPolicy::prompt(&request);
            for message in prompt.to_messages(false) {
                eprintln!("<{}>\n{}", message.role.as_str(), message.content);
            }
        }
        let (tx, rx) = crossbeam_channel::unbounded();
        let _cancel = seat.2.start(request, seat.1.history().clone(), tx);
        // The line that sounded while this turn was asked is heard now.
        if let Some((who, text, id)) = sounding.take() {
            hear_as(&mut seats, &who, &text, id, false);
        }
        let mut text = String::new();
        while let BackendEvent::Chunk { text: chunk, .. } =
            rx.recv_timeout(Duration::from_secs(120))?
        {
            text.push_str(&chunk);
        }
        eprintln!("  ({action})");
        if format.quotes_the_line_heard {
            written.line(speaker, text.trim(), question_id, false)?;
            sounding = Some((speaker.to_owned(), text.trim().to_owned(), question_id));
        } else {
            speak(
                &mut seats,
                &mut written,
                speaker,
                text.trim(),
                question_id,
                false,
            )?;
        }
        last = speaker.to_owned();
    }
    eprintln!("{turns} turns in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// The transcript as the voice would say it (the segmenter's cleaning of the text), a
/// second a line.
struct Written {
    file: Option<std::fs::File>,
    clock_ms: u64,
}

impl Written {
    /// `text` of `speaker`, printed and written down.
    fn line(
        &mut self,
        speaker: &str,
        text: &str,
        question_id: u64,
        human: bool,
    ) -> eyre::Result<()> {
        println!("[q{question_id}] {speaker}: {text}");
        if let Some(file) = self.file.as_mut() {
            let heard = text_segmenter::sanitize(text);
            let line = serde_json::json!({
                "speaker": speaker, "question_id": question_id, "text": text, "text_played": heard,
                "start_ms": self.clock_ms, "end_ms": self.clock_ms + 1000, "interrupted": false,
                "human": human,
            });
            writeln!(file, "{line}")?;
        }
        self.clock_ms += 1000;
        Ok(())
    }
}

/// `text` of `speaker` written down and heard by every participant.
fn speak(
    seats: &mut [(String, BridgeCore, LocalBackend)],
    written: &mut Written,
    speaker: &str,
    text: &str,
    question_id: u64,
    human: bool,
) -> eyre::Result<()> {
    written.line(speaker, text, question_id, human)?;
    hear_as(seats, speaker, text, question_id, human);
    Ok(())
}

/// Every participant hears `text` of `speaker`.
fn hear_as(
    seats: &mut [(String, BridgeCore, LocalBackend)],
    speaker: &str,
    text: &str,
    question_id: u64,
    human: bool,
) {
    for (_, core, _) in seats.iter_mut() {
        let mut entry = Entry::new(speaker, text, question_id);
        entry.human = human;
        core.decide(BridgeInput::Utterance(entry));
    }
}

/// The auction's instruction for `speaker`'s segment at turn `turn` (its words aimed at
/// the preset's five seconds), quoting `heard`, the line that sounds meanwhile.
fn auction_instruction(speaker: &str, turn: usize, heard: String) -> String {
    let config = auction_core::AuctionConfig::debate_snappy();
    let target_words =
        (config.segment_seconds.target * config.timing.words_per_second).round() as u32;
    let kind = if turn > 0 && heard.is_empty() {
        auction_core::HintKind::Continue
    } else {
        auction_core::HintKind::Open
    };
    let request = auction_core::SegmentRequest {
        agent: speaker.to_owned(),
        auction_id: String::new(),
        segment_id: String::new(),
        clip_id: String::new(),
        hint: auction_core::SegmentHint {
            kind,
            respond_to: None,
            acknowledge: None,
            target_words,
            mood: auction_core::Mood::default(),
        },
        context_version: 0,
    };
    auction_core::debate::segment_instruction(&request, heard)
}
