//! `rehearsal-moderator`: the pitch-rehearsal moderator. Arrow in →
//! [`rehearsal_core::Rehearsal`] →
//! Arrow out, context files ([`agent_context`]) and the event log.
//!
//! Inputs: `presenter` (final presenter transcripts), `human_text` (typed on a page,
//! taken as said), `control` (`slide N`, `open_qa`,
//! `end`, ...), one text stream per panelist (input id = the panelist's name), `reply*`
//! (answers to candidate-question requests), optional `playback_done`,
//! `playback_started` (from the player) and `speech_started` (presenter voice activity).
//! Outputs: `turn`, `text`, `request`, `utterance`, `interrupt`, `phase`,
//! `presenter_text`, `board` (optional: what a presenter's page shows). See docs/ARCHITECTURE.md.

mod files;
mod memory;
mod setup;

use std::time::Instant;

use dora_node_api::DoraNode;
use eyre::{Context, eyre};
use node_kit::conduct::{Conversions, Received};
use node_kit::decisions::{DecisionWriter, RecordedConductor};
use rehearsal_core::rehearsal::{
    Config, Input, MODERATOR, Output, REHEARSAL_FORMAT, RehearsalSetup,
};
use voice_protocol::ids;
use voice_protocol::messages::{Chunk, Interrupt, Plain, Transcript, Turn, Utterance};

use crate::files::SessionFiles;
use crate::setup::Setup;

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let setup = Setup::from_env()?;
    let (mut node, mut events) =
        DoraNode::init_from_env().context("failed to start the dora node")?;
    let folder = node_kit::session::session_folder(&node.dataflow_id().to_string())?;
    let wired = node
        .node_config()
        .inputs
        .keys()
        .any(|id| id.as_str() == ids::PLAYBACK_DONE);
    let paced = node_kit::env_parse("WAIT_FOR_PLAYBACK", wired)?;
    let Setup {
        config,
        panel_yaml,
        deck_path,
        deck_text,
        phrases,
        store_root,
        intel,
    } = setup;
    let agents: Vec<&str> = config.agents.iter().map(|a| a.name.as_str()).collect();
    let mut files = SessionFiles::create(&store_root, &folder, &agents)?;
    let deck_title = rehearsal_core::Deck::parse(&deck_text).title_of(0);
    let (memory, previous) = memory::Memory::open(&folder, &deck_title)?;
    files.memory = Some(memory);
    // Everything the rehearsal is built and started from, texts included, so that
    // `replay` rebuilds the same one (docs/ARCHITECTURE.md, "Record and replay").
    let recorded = RehearsalSetup {
        panel_yaml,
        deck_path,
        deck_text,
        phrases: phrases
            .as_ref()
            .map(|(_, text)| text.clone())
            .unwrap_or_default(),
        intel,
        styles: files.styles(&agents),
        config: Config { paced },
        previous,
    };
    let agents: Vec<String> = agents.into_iter().map(str::to_owned).collect();
    let (rehearsal, report) = recorded
        .build_reporting()
        .map_err(|e| eyre!("PANEL: {e}"))?;
    if let Some((source, _)) = &phrases {
        node_kit::conduct::report_phrases(source, &report);
    }
    tracing::info!(
        folder = %folder.display(),
        context = %files.context_dir.display(),
        ?agents,
        slides = rehearsal.deck().len(),
        language = ?config.language,
        wait_for_playback = paced,
        "rehearsal moderator ready"
    );
    let log = DecisionWriter::open(&folder, node.id().as_ref(), REHEARSAL_FORMAT, &recorded);
    let sources = node_kit::InputSources::of(&node);
    let start = Instant::now();
    let now = || start.elapsed().as_millis() as u64;
    let mut conductor = RecordedConductor::new(rehearsal, recorded, log);
    let mut conversions = Conversions {
        decode,
        restarted: |input: &str| Input::Restarted {
            input: input.to_owned(),
        },
        closed: |_: &str| None,
        emit: |out| emit(&mut node, &mut files, out),
    };
    let ending =
        node_kit::conduct::run(&mut conductor, &mut events, &sources, now, &mut conversions)?;
    tracing::debug!(?ending, "rehearsal loop over");
    let out = conductor.call(conductor::Call::Input(Input::Stop), now());
    // The outputs may no longer be delivered; the files are what matters now.
    if let Err(e) = (conversions.emit)(out) {
        tracing::debug!(error = %e, "outputs after stop not sent");
    }
    Ok(())
}

/// An input as the conductor's [`Input`]; `None` if it cannot be read.
fn decode(input: Received<'_>) -> Option<Input> {
    let id = input.id;
    // Their payloads are not used.
    match id {
        ids::SPEECH_STARTED => return Some(Input::SpeechStarted),
        ids::PLAYBACK_STARTED => {
            return Some(Input::PlaybackStarted {
                question_id: input.played(),
            });
        }
        ids::PLAYBACK_DONE => {
            return Some(Input::Played {
                question_id: input.played(),
            });
        }
        _ => {}
    }
    if ![ids::PRESENTER, ids::HUMAN_TEXT, ids::CONTROL].contains(&id) && !id.starts_with(ids::REPLY)
    {
        // A panelist's stream, or an unknown input: the rehearsal tells them apart.
        let chunk = input.chunk();
        return Some(Input::Text {
            agent: id.to_owned(),
            question_id: chunk.question_id,
            text: chunk.text,
            status: chunk.status,
            error: chunk.error,
        });
    }
    Some(match id {
        // Typed on a page: said, as a final transcript is.
        ids::PRESENTER | ids::HUMAN_TEXT => {
            let text = input.readable_text()?;
            let transcript = input.decode::<Transcript>().ok()?;
            if let Some(raw) = &transcript.unknown_status {
                tracing::warn!(input = id, value = %raw, "unknown session_status; treating the message as complete");
            }
            Input::Presenter {
                ended: transcript.is_final(),
                speaker: transcript.speaker,
                text,
            }
        }
        ids::CONTROL => Input::Control(input.readable_text()?),
        reply => {
            let meta = input.reply()?;
            Input::Reply {
                input: reply.to_owned(),
                speaker: meta.speaker,
                request_id: meta.request_id,
                text: meta.text,
                error: meta.error,
            }
        }
    })
}

/// Sends and writes what the conductor returned, in order. Every file is written even
/// if a send fails; the first send error is returned.
fn emit(node: &mut DoraNode, files: &mut SessionFiles, out: Vec<Output>) -> eyre::Result<()> {
    let mut sent = Ok(());
    let mut keep_first_error = |result: eyre::Result<()>| {
        if let Err(e) = result
            && sent.is_ok()
        {
            sent = Err(e);
        }
    };
    for message in out {
        match message {
            Output::Turn(turn) => {
                let (context, parts) = files.assemble(&turn.agent);
                tracing::info!(agent = %turn.agent, question_id = turn.question_id, instruction = ?turn.kind, context_bytes = context.len(), "turn");
                files.record(&turn.record(context.len(), &parts));
                let asks = turn.asks();
                let message = Turn {
                    question_id: turn.question_id,
                    speaker: turn.agent,
                    instruction: Some(turn.instruction),
                    context: Some(context).filter(|c| !c.is_empty()),
                    prepared: turn.prepared,
                    exchange_id: Some(turn.exchange_id),
                    takes_up: turn.takes_up,
                    asks,
                };
                keep_first_error(node_kit::send(node, message));
            }
            Output::Line {
                question_id,
                text,
                kind,
            } => {
                let line = Chunk {
                    line_kind: Some(kind.slug().to_owned()),
                    ..Chunk::line(question_id, MODERATOR, text)
                };
                keep_first_error(node_kit::send(node, line));
            }
            Output::Utterance {
                speaker,
                question_id,
                text,
                human,
            } => {
                let utterance = Utterance {
                    question_id,
                    speaker,
                    text,
                    human,
                    ..Utterance::default()
                };
                keep_first_error(node_kit::send(node, utterance));
            }
            Output::PresenterText {
                speaker,
                question_id,
                text,
            } => {
                let said = Chunk::line(question_id, speaker, text);
                keep_first_error(node_kit::send_on(node, ids::PRESENTER_TEXT, said));
            }
            Output::Request(mut request) => {
                // A request to one panelist starts from the context its turns get.
                if let Some(to) = &request.to {
                    let (context, _) = files.assemble(to);
                    request.context = Some(context).filter(|c| !c.is_empty());
                }
                keep_first_error(node_kit::send(node, request));
            }
            Output::Interrupt { question_id, kind } => {
                keep_first_error(node_kit::send(node, Interrupt::new(kind, question_id)));
            }
            Output::Phase(phase) => {
                let name = Plain(phase.name().to_owned());
                keep_first_error(node_kit::send_on(node, ids::PHASE, name));
            }
            Output::Board(board) => {
                keep_first_error(node_kit::send_on(node, ids::BOARD, Plain(board.to_json())));
            }
            Output::Context { file, text, mode } => files.write(&file, &text, mode),
            Output::Record(record) => files.record(&record),
            Output::Debrief {
                markdown,
                figures,
                remembered,
            } => files.debrief(&markdown, &figures, remembered),
            Output::FreezeContext => files.freeze(),
        }
    }
    sent
}
