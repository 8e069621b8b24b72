//! The inputs each of the project's programs reads. An input its program does not read
//! is dropped without a word (the recorder's `playd` never records what was heard), or,
//! where a program takes a participant under any name, read as that participant's words
//! (the controller would take the player's `played` report as a line). The table is kept
//! true to the sources by `tests/inputs.rs`.

/// What a program reads, by input id or by the output it comes from.
#[derive(Debug, Clone, Copy)]
pub struct Reads {
    /// Input ids read by name.
    pub ids: &'static [&'static str],
    /// Input ids read by name and with any `_<suffix>` (`audio` and `audio_console`).
    pub families: &'static [&'static str],
    /// Outputs of other nodes read under any input id: the program names its input after
    /// the node it comes from (a participant's `text`, a bridge's `model` requests).
    pub from_outputs: &'static [&'static str],
}

impl Reads {
    /// Whether an input `id` taken from `source` (`node/output`) is read.
    pub fn reads(&self, id: &str, source: &str) -> bool {
        let output = source.rsplit('/').next().unwrap_or(source);
        self.ids.contains(&id)
            || self.families.iter().any(|family| {
                id == *family
                    || id
                        .strip_prefix(family)
                        .is_some_and(|rest| rest.starts_with('_'))
            })
            || self.from_outputs.contains(&output)
    }

    /// What the program reads, for a message.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self.ids.iter().map(|id| format!("`{id}`")).collect();
        parts.extend(
            self.families
                .iter()
                .map(|f| format!("`{f}` or `{f}_<name>`")),
        );
        parts.extend(
            self.from_outputs
                .iter()
                .map(|o| format!("any node's `{o}` under that node's name")),
        );
        parts.join(", ")
    }
}

const NOTHING: &[&str] = &[];

/// The inputs of each program (the file name of a node's `path`), as the sources read
/// them.
pub const PROGRAM_INPUTS: &[(&str, Reads)] = &[
    (
        "asr-bridge",
        Reads {
            ids: &["reference"],
            families: &["audio"],
            from_outputs: NOTHING,
        },
    ),
    (
        "auction",
        Reads {
            ids: &[
                "backchannel",
                "beat",
                "clip_finished",
                "clip_ready",
                "clip_started",
                "human",
                "human_text",
                "speech_started",
            ],
            families: NOTHING,
            from_outputs: &["text", "reply"],
        },
    ),
    (
        "conference-controller",
        Reads {
            ids: &[
                "backchannel",
                "control",
                "human",
                "human_text",
                "playback_done",
                "speech_started",
            ],
            families: NOTHING,
            from_outputs: &["text"],
        },
    ),
    (
        "console",
        Reads {
            ids: &[
                "audio",
                "auction",
                "backchannel",
                "board",
                "decision",
                "human_audio",
                "interrupt",
                "mic",
                "phase",
                "playback_done",
                "playback_started",
                "played",
                "speech_started",
                "status",
                "transcript",
                "turn",
                "utterance",
            ],
            families: &["text"],
            from_outputs: NOTHING,
        },
    ),
    (
        "llm-bridge",
        Reads {
            ids: &[
                "held",
                "interrupt",
                "model_reply",
                "played",
                "prepare",
                "request",
                "turn",
                "utterance",
            ],
            families: NOTHING,
            from_outputs: NOTHING,
        },
    ),
    (
        "model-host",
        Reads {
            ids: NOTHING,
            families: NOTHING,
            from_outputs: &["model"],
        },
    ),
    (
        "moderator",
        Reads {
            ids: &[
                "backchannel",
                "control",
                "human",
                "human_text",
                "playback_done",
                "playback_started",
                "speech_started",
            ],
            families: &["reply"],
            from_outputs: &["text"],
        },
    ),
    (
        "rehearsal-moderator",
        Reads {
            ids: &[
                "backchannel",
                "control",
                "human_text",
                "playback_done",
                "playback_started",
                "presenter",
                "speech_started",
            ],
            families: &["reply"],
            from_outputs: &["text"],
        },
    ),
    (
        "scripted-human",
        Reads {
            ids: &["room", "turn"],
            families: NOTHING,
            from_outputs: NOTHING,
        },
    ),
    (
        "scripted-presenter",
        Reads {
            ids: &["phase", "played", "utterance"],
            families: NOTHING,
            from_outputs: NOTHING,
        },
    ),
    (
        "session-recorder",
        Reads {
            ids: &[
                "auction",
                "decision",
                "interrupt",
                "playback_started",
                "played",
                "turn",
                "utterance",
            ],
            families: NOTHING,
            from_outputs: NOTHING,
        },
    ),
    (
        "text-segmenter",
        Reads {
            ids: &["interrupt"],
            families: NOTHING,
            from_outputs: &["text", "presenter_text"],
        },
    ),
    (
        "tts-player",
        Reads {
            ids: &[
                "clip",
                "command",
                "interrupt",
                "pause",
                "prepare",
                "resume",
                "segment",
                "utterance",
            ],
            families: &["audio", "human_audio", "text"],
            from_outputs: NOTHING,
        },
    ),
];

/// What `program` reads, if it is one of the project's programs.
pub fn inputs_of(program: &str) -> Option<&'static Reads> {
    PROGRAM_INPUTS
        .iter()
        .find(|(p, _)| *p == program)
        .map(|(_, reads)| reads)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_is_read_by_name_family_or_the_output_it_comes_from() {
        let player = inputs_of("tts-player").unwrap();
        assert!(player.reads("segment", "text-segmenter/segment"));
        assert!(player.reads("human_audio_console", "asr/audio_console"));
        assert!(!player.reads("segments", "text-segmenter/segment"));
        assert!(!player.reads("audiohub", "tts/audio"));
        let controller = inputs_of("conference-controller").unwrap();
        assert!(controller.reads("tutor", "tutor/text"));
        assert!(!controller.reads("played", "tts/playback_done"));
        assert!(inputs_of("python").is_none());
    }
}
