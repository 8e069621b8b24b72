//! `text-segmenter`: participants' streamed `text` in (any input id but `interrupt`),
//! `segment` out (Utf8; metadata `speaker`, `question_id`, `segment_index`,
//! `last_segment`). Decisions live in [`text_segmenter::SegmenterCore`], run by the one
//! loop of the deciding nodes and recorded for `replay` (`decisions/<node-id>.jsonl`). A
//! text without a `question_id` (a dora node-hub LLM's bare Utf8 output) is one whole
//! utterance under an id of its own.

mod settings;

use std::time::Instant;

use dora_node_api::DoraNode;
use eyre::Context;
use node_kit::conduct::{Conversions, Received};
use node_kit::decisions::{DecisionWriter, Recorded};
use text_segmenter::{SEGMENTER_FORMAT, SegmenterCore, SegmenterInput, SegmenterOutput};
use voice_protocol::{StreamStatus, hub::LocalQuestionIds, ids};

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let config = settings::from_env()?;
    let (mut node, mut events) =
        DoraNode::init_from_env().context("failed to start the dora node")?;
    let folder = node_kit::session::session_folder(&node.dataflow_id().to_string())?;
    let log = DecisionWriter::open(&folder, node.id().as_ref(), SEGMENTER_FORMAT, &config);
    let mut core = Recorded::new(SegmenterCore::new(config), (), log);
    let sources = node_kit::InputSources::of(&node);
    let start = Instant::now();
    // node-hub-style text (a bare Utf8 message, no question id) is one whole utterance.
    let mut local_ids = LocalQuestionIds::default();
    let mut conversions = Conversions {
        decode: |received: Received<'_>| decode(received, &mut local_ids),
        restarted: |_: &str| None,
        closed: |_: &str| None,
        emit: |outputs: Vec<SegmenterOutput>| {
            for output in outputs {
                match output {
                    SegmenterOutput::Segment(segment) => {
                        tracing::debug!(speaker = %segment.speaker, question_id = segment.question_id, index = segment.index, last = segment.last, text = %segment.text, "segment");
                        node_kit::send(&mut node, segment)?;
                    }
                    SegmenterOutput::Notice(notice) => tracing::warn!("{notice}"),
                }
            }
            Ok(())
        },
    };
    let now = || start.elapsed().as_millis() as u64;
    node_kit::conduct::run(&mut core, &mut events, &sources, now, &mut conversions)?;
    Ok(())
}

/// A dora input as the segmenter's; `None` (with a warning) when it cannot be used.
fn decode(received: Received<'_>, local_ids: &mut LocalQuestionIds) -> Option<SegmenterInput> {
    let id = received.id;
    if id == ids::INTERRUPT {
        // Only its id counts: its kind is not read.
        let Some(question_id) = node_kit::question_id(received.params) else {
            tracing::warn!(input = %id, "interrupt without question_id ignored");
            return None;
        };
        local_ids.observe(question_id);
        return Some(SegmenterInput::Interrupt { question_id });
    }
    let chunk = node_kit::read_chunk(id, received.params, received.data);
    let given_id = chunk.question_id;
    let text = match chunk.text {
        Ok(text) => text,
        Err(e) if chunk.status.is_some() && given_id.is_some() => {
            tracing::warn!(input = %id, error = %e, "unreadable text; keeping only its session_status");
            String::new()
        }
        Err(e) => {
            tracing::warn!(input = %id, error = %e, "unreadable input ignored");
            return None;
        }
    };
    // Without an id it is a whole utterance, whatever it says it is.
    let status = if given_id.is_none() {
        Some(StreamStatus::Ended)
    } else {
        chunk.status
    };
    Some(SegmenterInput::Text {
        speaker: chunk.speaker.unwrap_or_else(|| id.to_owned()),
        question_id: local_ids.or_fresh(given_id),
        text,
        status,
        ends_sentence: chunk.ends_sentence,
    })
}
