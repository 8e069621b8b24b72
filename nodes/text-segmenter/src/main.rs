//! `text-segmenter`: participants' streamed `text` in (any input id but `interrupt`),
//! `segment` out (Utf8; metadata `speaker`, `question_id`, `segment_index`,
//! `last_segment`). Decisions live in [`text_segmenter::SegmenterCore`]. A text without a
//! `question_id` (a dora node-hub LLM's bare Utf8 output) is one whole utterance under
//! an id of its own.

mod settings;

use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::Context;
use node_kit::{Next, next_event};
use text_segmenter::{SegmenterCore, SegmenterInput};
use voice_protocol::messages::Segment;
use voice_protocol::{StreamStatus, hub::LocalQuestionIds, ids};

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let config = settings::from_env()?;
    let (mut node, mut events) =
        DoraNode::init_from_env().context("failed to start the dora node")?;
    let mut core = SegmenterCore::new(config);
    // node-hub-style text (a bare Utf8 message, no question id) is one whole utterance.
    let mut local_ids = LocalQuestionIds::default();
    loop {
        let input = match next_event(&mut events, None) {
            Next::Closed | Next::Timeout => break,
            Next::Event(event) => match *event {
                DoraEvent::Input { id, metadata, data } => {
                    if id.as_str() == ids::INTERRUPT {
                        // Only its id counts: its kind is not read.
                        let Some(question_id) = node_kit::question_id(&metadata.parameters) else {
                            tracing::warn!(input = %id, "interrupt without question_id ignored");
                            continue;
                        };
                        local_ids.observe(question_id);
                        SegmenterInput::Interrupt { question_id }
                    } else {
                        let chunk = node_kit::read_chunk(id.as_str(), &metadata.parameters, &data);
                        let given_id = chunk.question_id;
                        let text = match chunk.text {
                            Ok(text) => text,
                            Err(e) if chunk.status.is_some() && given_id.is_some() => {
                                tracing::warn!(input = %id, error = %e, "unreadable text; keeping only its session_status");
                                String::new()
                            }
                            Err(e) => {
                                tracing::warn!(input = %id, error = %e, "unreadable input ignored");
                                continue;
                            }
                        };
                        let question_id = local_ids.or_fresh(given_id);
                        // Without an id it is a whole utterance, whatever it says it is.
                        let status = if given_id.is_none() {
                            Some(StreamStatus::Ended)
                        } else {
                            chunk.status
                        };
                        SegmenterInput::Text {
                            speaker: chunk.speaker.unwrap_or_else(|| id.to_string()),
                            question_id,
                            text,
                            status,
                            ends_sentence: chunk.ends_sentence,
                        }
                    }
                }
                DoraEvent::Stop(_) => break,
                _ => continue,
            },
        };
        let segments = core.handle(input);
        for notice in core.take_notices() {
            tracing::warn!("{notice}");
        }
        for segment in segments {
            tracing::debug!(speaker = %segment.speaker, question_id = segment.question_id, index = segment.index, last = segment.last, text = %segment.text, "segment");
            let segment = Segment {
                question_id: segment.question_id,
                speaker: segment.speaker,
                index: segment.index,
                last: segment.last,
                text: segment.text,
            };
            node_kit::send(&mut node, segment)?;
        }
    }
    Ok(())
}
