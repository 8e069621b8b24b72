//! The settings each of the project's programs reads from its `env:`. A name its program
//! does not read is ignored without a word: a misspelt `DORA_POLICY_PATERN` leaves the
//! default pattern in place, and the panel the user wrote never meets. The table is kept
//! true to the sources by `tests/settings.rs`.

/// Read by every node, or by what runs inside it (dora, the session folder, logging,
/// the libraries' own threads and paths).
const EVERY_NODE: &[&str] = &["SESSIONS_ROOT", "SESSION_DIR", "SESSION_ID", "PATH", "HOME"];

/// Prefixes of names that dora, Rust's runtime and the native libraries read.
const OTHERS_PREFIXES: &[&str] = &[
    "DORA_", "RUST_", "OMP_", "LD_", "GGML_", "ORT_", "CT2_", "CUDA_",
];

/// The settings of each program (the file name of a node's `path`), as the sources read
/// them.
pub const PROGRAM_SETTINGS: &[(&str, &[&str])] = &[
    (
        "asr-bridge",
        &[
            "ASR_API_KEY_ENV",
            "ASR_BACKEND",
            "ASR_BASE_URL",
            "ASR_BEAM",
            "ASR_DRAIN_TIMEOUT_SECS",
            "ASR_KEEP_FILLERS",
            "ASR_LANGUAGE",
            "ASR_MODEL",
            "ASR_MODEL_PATH",
            "ASR_PAD_MS",
            "ASR_THREADS",
            "ASR_TIMEOUT_SECS",
            "BACKCHANNEL_MAX_MS",
            "BACKCHANNEL_MAX_WORDS",
            "ECHO_CANCEL_INPUTS",
            "ECHO_TAIL_MS",
            "SPEAKER",
            "VAD_COMMIT_MS",
            "VAD_END_MS",
            "VAD_HOLD_MS",
            "VAD_PAUSE_MS",
            "VAD_THRESHOLD",
        ],
    ),
    (
        "auction",
        &[
            "AUCTION_CONFIG",
            "AUCTION_MAX_SEGMENTS",
            "AUCTION_PARTICIPANTS",
            "AUCTION_SEED",
            "SEGMENT_TIMEOUT_SECS",
            "SIDE_REQUEST_TIMEOUT_SECS",
        ],
    ),
    (
        "conference-controller",
        &[
            "ABSENT_RETRY_TURNS",
            "DORA_POLICY_PATTERN",
            "HUMAN_PARTICIPANTS",
            "HUMAN_TIMEOUT_SECS",
            "MAX_UNPLAYED_TURNS",
            "TURN_RESEND_SECS",
            "TURN_TIMEOUT_SECS",
        ],
    ),
    (
        "console",
        &[
            "CONSOLE_ADDR",
            "CONSOLE_PORT",
            "CONSOLE_QUEUE",
            "CONSOLE_TOKEN",
            "HUMAN_SPEAKER",
        ],
    ),
    (
        "llm-bridge",
        &[
            "AGENDA",
            "ANSWER_OPENERS",
            "HISTORY_LIMIT",
            "LLM_API_KEY_ENV",
            "LLM_BACKEND",
            "LLM_BATCH_THREADS",
            "LLM_BASE_URL",
            "LLM_CONNECT_TIMEOUT_SECS",
            "LLM_CONTEXT_TOKENS",
            "LLM_FIRST_TOKEN_TIMEOUT_SECS",
            "LLM_MAX_RETRIES",
            "LLM_MAX_TOKENS",
            "LLM_MAX_WORDS",
            "LLM_MODEL",
            "LLM_MODEL_PATH",
            "LLM_PREFIX_REUSE",
            "LLM_SEED",
            "LLM_STALL_TIMEOUT_SECS",
            "LLM_TEMPERATURE",
            "LLM_THREADS",
            "LLM_TURN_TIMEOUT_SECS",
            "LLM_WINDOW_LINES",
            "MODEL_HOST_SILENCE_SECS",
            "MODEL_PARTICIPANTS",
            "OFFLINE_WORD_DELAY_MS",
            "PARTICIPANT_NAME",
            "PERSONA",
            "REQUEST_TIMEOUT_SECS",
            "TOPIC",
        ],
    ),
    ("microphone", &["BLOCK_MS", "MIC_COMMAND", "SAMPLE_RATE"]),
    (
        "model-host",
        &[
            "LLM_BACKEND",
            "LLM_BATCH_THREADS",
            "LLM_CONTEXT_TOKENS",
            "LLM_MAX_TOKENS",
            "LLM_MAX_WORDS",
            "LLM_MODEL_PATH",
            "LLM_PREFIX_REUSE",
            "LLM_SEED",
            "LLM_TEMPERATURE",
            "LLM_THREADS",
            "LLM_WINDOW_LINES",
            "MODEL_PARTICIPANTS",
        ],
    ),
    (
        "moderator",
        &[
            "MAX_UNPLAYED_TURNS",
            "PACE_WITH_PLAYBACK",
            "PLAYBACK_TIMEOUT_SECS",
            "SCENARIO",
        ],
    ),
    (
        "rehearsal-moderator",
        &[
            "AGENTS_ROOT",
            "DECK",
            "INTEL",
            "PACE_WITH_PLAYBACK",
            "PANEL",
            "PRESENTER_FRESH",
            "PRESENTER_HISTORY_DIR",
            "PRESENTER_NAME",
        ],
    ),
    (
        "scripted-human",
        &[
            "BLOCK_MS",
            "HUMAN_OUTPUTS",
            "HUMAN_SCRIPT",
            "HUMAN_VOICE",
            "KOKORO_DIR",
            "ONNXRUNTIME_LIB",
            "ROOM_ECHO_DB",
            "ROOM_ECHO_MS",
            "SAMPLE_RATE",
        ],
    ),
    (
        "scripted-presenter",
        &[
            "MODERATOR_NAME",
            "PACE_WITH_PLAYBACK",
            "PRESENTER_SCRIPT",
            "PRESENTER_STYLE",
        ],
    ),
    (
        "session-recorder",
        &["AGENTS", "AGENTS_ROOT", "PACE_WITH_PLAYBACK"],
    ),
    (
        "text-segmenter",
        &[
            "SEGMENT_FIRST_CLAUSE_WORDS",
            "SEGMENT_MAX_CHARS",
            "SEGMENT_MIN_CHARS",
        ],
    ),
    (
        "tts-player",
        &[
            "AUDIO_OUTPUT",
            "BLOCK_MS",
            "ESPEAK_SPEED",
            "KOKORO_DIR",
            "KOKORO_LANGUAGE",
            "ONNXRUNTIME_LIB",
            "SAMPLE_RATE",
            "TTS_API_KEY_ENV",
            "TTS_BACKEND",
            "TTS_BASE_URL",
            "TTS_MODEL",
            "TTS_THREADS",
            "TTS_TIMEOUT_SECS",
            "VOICE_MAP",
        ],
    ),
];

/// The settings `program` reads, when it is one of the project's.
pub fn settings_of(program: &str) -> Option<&'static [&'static str]> {
    PROGRAM_SETTINGS
        .iter()
        .find(|(name, _)| *name == program)
        .map(|(_, settings)| *settings)
}

/// Whether a program with `program_settings` would read the setting `name`, given the
/// node's whole `env`: its own settings, those every node reads, dora's and the native
/// libraries', and the variable its `<SERVICE>_API_KEY_ENV` names (a model service's
/// key; `OPENAI_API_KEY` by default).
pub fn reads(program_settings: &[&str], name: &str, env: &[(&str, &str)]) -> bool {
    program_settings.contains(&name)
        || EVERY_NODE.contains(&name)
        // dora's and the libraries' own, unless it is close to one of the program's
        // (`DORA_POLICY_PATERN`)
        || (OTHERS_PREFIXES.iter().any(|p| name.starts_with(p))
            && closest(name, program_settings).is_none())
        || name == "OPENAI_API_KEY"
        || env
            .iter()
            .any(|(key, value)| key.ends_with("_API_KEY_ENV") && value.trim() == name)
}

/// The setting of `settings` that `name` most likely misspells: the fewest letters
/// changed, at most a quarter of the name's (at least two).
pub fn closest<'a>(name: &str, settings: &[&'a str]) -> Option<&'a str> {
    let most = (name.chars().count() / 4).max(2);
    settings
        .iter()
        .map(|s| (edit_distance(name, s), *s))
        .filter(|(d, _)| *d <= most)
        .min()
        .map(|(_, s)| s)
}

/// Letters inserted, removed or replaced to turn `a` into `b` (Levenshtein).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_name_finds_the_setting_it_meant() {
        let controller = settings_of("conference-controller").unwrap();
        assert_eq!(
            closest("DORA_POLICY_PATERN", controller),
            Some("DORA_POLICY_PATTERN")
        );
        assert_eq!(
            closest("TURN_TIMEOUT_SEC", controller),
            Some("TURN_TIMEOUT_SECS")
        );
        assert_eq!(closest("VOICE_MAP", controller), None);
    }

    #[test]
    fn what_dora_the_libraries_and_a_services_key_read_is_no_mistake() {
        let bridge = settings_of("llm-bridge").unwrap();
        let env = [("LLM_API_KEY_ENV", "GROQ_KEY")];
        for name in [
            "RUST_LOG",
            "DORA_NODE_CONFIG",
            "OMP_NUM_THREADS",
            "CUDA_VISIBLE_DEVICES",
            "GROQ_KEY",
            "TOPIC",
        ] {
            assert!(reads(bridge, name, &env), "{name}");
        }
        assert!(!reads(bridge, "TOPICS", &env));
        assert!(!reads(bridge, "GROQ_KEY", &[]));
        let controller = settings_of("conference-controller").unwrap();
        assert!(!reads(controller, "DORA_POLICY_PATERN", &[]));
    }

    #[test]
    fn edit_distance_counts_letters() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
