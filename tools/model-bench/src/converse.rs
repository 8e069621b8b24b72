//! `model-bench converse FORMAT TURNS [GGUF] [OUT_DIR]`: a text-only conversation of the
//! embedded model with itself, in the shape of a shipped dataflow (`study`, `debate`,
//! `panel`), through the bridges' own planning, prompting and filtering: a fast way to read
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

/// A shipped dataflow's participants, topic and turn order (a simple stand-in for its
/// policy), and when the human speaks.
struct Format {
    agenda: &'static str,
    participants: &'static [&'static str],
    /// Who speaks at turn `i` (0-based), given who spoke last.
    next: fn(usize, &str) -> &'static str,
    /// The human's lines, by the turn they come after.
    human: &'static [(usize, &'static str)],
}

fn format(name: &str) -> eyre::Result<Format> {
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
        },
        "panel" => Format {
            agenda: "dataflows/agendas/panel.yml",
            participants: &["host", "expert1", "expert2", "guest"],
            next: |i, _| ["host", "expert1", "host", "expert2", "guest"][i % 5],
            human: &[],
        },
        other => bail!("unknown format {other:?} (study, debate, panel)"),
    })
}

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
        let config = crate::bench_config(model, true);
        let backend = LocalBackend::load(config, p.clone())?;
        let others = roster.iter().filter(|r| r.id != p.name).cloned().collect();
        let core = BridgeCore::new(p.clone(), Some(agenda.topic().to_owned()), 60)
            .with_plan(others, Some(agenda.clone()));
        seats.push((p.name.clone(), core, backend));
    }
    let mut transcript = match &out {
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            Some(std::fs::File::create(dir.join("transcript.jsonl"))?)
        }
        None => None,
    };
    let mut question_id = 0u64;
    let mut last = String::new();
    let mut clock_ms = 0u64;
    let mut say = |seats: &mut Vec<(String, BridgeCore, LocalBackend)>,
                   speaker: &str,
                   text: &str,
                   question_id: u64,
                   human: bool|
     -> eyre::Result<()> {
        println!("[q{question_id}] {speaker}: {text}");
        for (_, core, _) in seats.iter_mut() {
            let mut entry = Entry::new(speaker, text, question_id);
            entry.human = human;
            core.handle(BridgeInput::Utterance(entry));
        }
        if let Some(file) = transcript.as_mut() {
            // What the voice would say: the segmenter's cleaning of the text.
            let heard = text_segmenter::sanitize(text);
            let line = serde_json::json!({
                "speaker": speaker, "question_id": question_id, "text": text, "text_played": heard,
                "start_ms": clock_ms, "end_ms": clock_ms + 1000, "interrupted": false, "human": human,
            });
            writeln!(file, "{line}")?;
        }
        clock_ms += 1000;
        Ok(())
    };
    let started = Instant::now();
    for turn in 0..turns {
        if let Some((_, line)) = format.human.iter().find(|(at, _)| *at == turn) {
            question_id += 1;
            say(&mut seats, "human", line, question_id, true)?;
            last = "human".to_owned();
        }
        let speaker = (format.next)(turn, &last);
        question_id += 1;
        let seat = seats
            .iter_mut()
            .find(|(name, _, _)| name == speaker)
            .ok_or_else(|| eyre!("no seat for {speaker}"))?;
        let outputs = seat.1.handle(BridgeInput::Turn {
            speaker: speaker.to_owned(),
            question_id,
            instruction: None,
            context: None,
        });
        let Some(request) = outputs.into_iter().find_map(|o| match o {
            BridgeOutput::Generate(r) => Some(r),
            _ => None,
        }) else {
            bail!("{speaker} did not take turn {question_id}");
        };
        let action = request.plan.as_ref().map_or("-", |p| p.action.as_str());
        if std::env::var_os("CONVERSE_SHOW_PROMPT").is_some() {
            let prompt = agent_bridge::local::LocalPrompt::from_messages(
                &request.messages,
                seat.1.persona().spoken_name(),
            );
            for message in prompt.to_messages(false) {
                eprintln!("<{}>\n{}", message.role.as_str(), message.content);
            }
        }
        let (tx, rx) = crossbeam_channel::unbounded();
        let _cancel = seat.2.start(request, seat.1.history().clone(), tx);
        let mut text = String::new();
        while let BackendEvent::Chunk { text: chunk, .. } =
            rx.recv_timeout(Duration::from_secs(120))?
        {
            text.push_str(&chunk);
        }
        eprintln!("  ({action})");
        say(&mut seats, speaker, text.trim(), question_id, false)?;
        last = speaker.to_owned();
    }
    eprintln!("{turns} turns in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}
