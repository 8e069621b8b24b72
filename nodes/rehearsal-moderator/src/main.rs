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
//! `presenter_text`, `board` (optional: what a presenter's page shows). See nodes/rehearsal-moderator/README.md.

mod codec;
mod files;
mod memory;
mod setup;

use std::time::Instant;

use dora_node_api::DoraNode;
use eyre::{Context, eyre};
use node_kit::conduct::Conversions;
use node_kit::decisions::{DecisionWriter, Recorded};
use rehearsal_core::rehearsal::{Config, Input, REHEARSAL_FORMAT, RehearsalSetup};
use voice_protocol::ids;

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
    let Setup {
        config,
        panel_yaml,
        deck_path,
        deck_text,
        phrases,
        store_root,
        intel,
        presenter,
        pace_with_playback,
    } = setup;
    let paced = pace_with_playback.unwrap_or(wired);
    let agents: Vec<&str> = config.agents.iter().map(|a| a.name.as_str()).collect();
    let mut files = SessionFiles::create(&store_root, &folder, &agents)?;
    let deck_title = rehearsal_core::Deck::parse(&deck_text).title_of(0);
    let (memory, previous) = memory::Memory::open(&folder, &deck_title, presenter);
    files.memory = Some(memory);
    // Everything the rehearsal is built and started from, texts included, so that
    // `replay` rebuilds the same one (docs/SESSIONS.md, "Record and replay").
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
    let mut conductor = Recorded::new(rehearsal, recorded, log);
    let mut conversions = Conversions {
        decode: codec::decode,
        restarted: |input: &str| {
            Some(Input::Restarted {
                input: input.to_owned(),
            })
        },
        closed: |_: &str| None,
        emit: |out| codec::emit(&mut node, &mut files, out),
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
