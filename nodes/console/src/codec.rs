//! Dora messages ↔ the console core's inputs and outputs.

use console_core::{ConsoleInput, DoraOutput, Meta, Payload};
use dora_node_api::{
    DoraNode, MetadataParameters,
    arrow_v59::{array::AsArray, datatypes::Float32Type},
};
use node_kit::DoraMeta;
use voice_protocol::messages::{Audio, Control, Meta as _, Transcript};
use voice_protocol::{ids, keys};

/// A dora input as the core's: its payload samples, text, or neither (an unreadable one,
/// with a warning).
pub fn to_input(
    id: &str,
    params: &MetadataParameters,
    data: &dora_node_api::DoraArray,
) -> ConsoleInput {
    let array = data.as_array();
    let payload = if let Some(samples) = array.as_primitive_opt::<Float32Type>() {
        Payload::Samples(samples.values().to_vec())
    } else {
        match node_kit::text_of(data) {
            Ok(text) => Payload::Text(text),
            Err(e) => {
                tracing::warn!(input = id, error = %e, "unreadable input ignored");
                Payload::Other
            }
        }
    };
    ConsoleInput::Dora {
        id: id.to_owned(),
        payload,
        meta: to_meta(params),
    }
}

/// Sends one output; a failure (e.g. an output the dataflow does not declare) is logged.
pub fn send(node: &mut DoraNode, out: DoraOutput) {
    let result = match out {
        DoraOutput::Control(command) => {
            tracing::info!(%command, "control from the page");
            node_kit::send(node, Control::new(command))
        }
        DoraOutput::HumanText { speaker, text } => {
            tracing::info!(%speaker, %text, "typed on the page");
            node_kit::send_on(
                node,
                ids::HUMAN_TEXT,
                Transcript::final_words(speaker, text),
            )
        }
        DoraOutput::Audio {
            sample_rate,
            samples,
        } => node_kit::send(node, Audio::new(sample_rate, samples)),
    };
    if let Err(e) = result {
        tracing::warn!(error = %e, "output not sent");
    }
}

fn to_meta(params: &MetadataParameters) -> Meta {
    // The console shows every message it is wired to, whatever it is: it reads the
    // keys any of them may carry.
    let meta = DoraMeta(params);
    let string = |k: &str| meta.text(k).map(str::to_owned);
    Meta {
        question_id: meta.question_id(),
        speaker: string(keys::SPEAKER),
        interrupted: meta.flag(keys::INTERRUPTED),
        is_human: meta.flag(keys::IS_HUMAN),
        session_status: string(keys::STREAM_STATUS),
        chars_played: meta.int(keys::CHARS_PLAYED),
        sample_rate: meta.int(keys::SAMPLE_RATE),
        kind: string(keys::LINE_KIND).or_else(|| string(keys::KIND)),
    }
}
