//! Kokoro-82M (int8 ONNX) in-process: loaded once, one voice per blend, text phonemized
//! by espeak-ng clause by clause and synthesized at 24 kHz.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::Arc,
    time::{Duration, Instant},
};

use audio_utils::Pcm;
use eyre::{Context, bail, eyre};
use kokoro_input::{SAMPLE_RATE, StyleBank, Vocab, VoiceSpec, clauses, phonemes, voice::style_row};
use ort::{
    environment::Environment,
    session::{RunOptions, Session},
    value::Tensor,
};

use crate::espeak;
use node_kit::{env_opt, repo_file};

/// Where setup.sh puts the model, its voices and vocabulary (relative to the repository).
pub const DEFAULT_DIR: &str = "models/kokoro";
/// Where setup.sh puts ONNX Runtime's library (relative to the repository).
pub const DEFAULT_RUNTIME: &str = "models/onnxruntime/libonnxruntime.so.1.32.0";
pub const MODEL_FILE: &str = "kokoro-v1.0.int8.onnx";
pub const VOICES_FILE: &str = "voices_ja.npz";
pub const VOCAB_FILE: &str = "vocab.json";

/// The files Kokoro needs.
#[derive(Debug, Clone)]
pub struct KokoroFiles {
    pub model: PathBuf,
    pub voices: PathBuf,
    pub vocab: PathBuf,
    pub runtime: PathBuf,
}

impl KokoroFiles {
    /// `KOKORO_DIR` (default `models/kokoro` of the repository) and `ONNXRUNTIME_LIB`
    /// (default `models/onnxruntime/libonnxruntime.so.1.32.0`).
    pub fn from_env() -> eyre::Result<Self> {
        let dir = match env_opt("KOKORO_DIR") {
            Some(dir) => PathBuf::from(dir),
            None => repo_file(DEFAULT_DIR)?,
        };
        let runtime = match env_opt("ONNXRUNTIME_LIB") {
            Some(lib) => PathBuf::from(lib),
            None => repo_file(DEFAULT_RUNTIME)?,
        };
        Ok(Self::in_dir(&dir, runtime))
    }

    pub fn in_dir(dir: &Path, runtime: PathBuf) -> Self {
        Self {
            model: dir.join(MODEL_FILE),
            voices: dir.join(VOICES_FILE),
            vocab: dir.join(VOCAB_FILE),
            runtime,
        }
    }

    /// The first file that is not there, if any.
    pub fn missing(&self) -> Option<&Path> {
        [&self.model, &self.voices, &self.vocab, &self.runtime]
            .into_iter()
            .find(|p| !p.is_file())
            .map(PathBuf::as_path)
    }
}

/// A voice ready to speak: its blended style table and speed.
#[derive(Debug, Clone)]
pub struct Voice {
    pub spec: String,
    table: Vec<f32>,
    speed: f32,
}

/// The loaded model.
pub struct Kokoro {
    session: Session,
    vocab: Vocab,
    styles: StyleBank,
    /// espeak-ng's language for phonemes (`en-us`).
    language: String,
    /// Bound of one espeak-ng call.
    timeout: Duration,
    voices: HashMap<String, Voice>,
    /// Shared with [`Cancel`]: a run under way stops when another thread terminates it.
    run_options: Arc<RunOptions>,
}

/// Stops the Kokoro call under way, from another thread (a barge-in made its text
/// stale): the call returns an error at once, instead of voicing up to a segment's
/// seconds of speech nobody will hear. Calls after [`Kokoro::rearm`] run normally.
#[derive(Clone)]
pub struct Cancel(Arc<RunOptions>);

impl Cancel {
    pub fn cancel(&self) {
        let _ = self.0.terminate();
    }
}

impl Kokoro {
    /// Loads ONNX Runtime, the model, its voices and vocabulary; every failure names the
    /// file and what installs it.
    pub fn load(files: &KokoroFiles, threads: usize, language: &str) -> eyre::Result<Self> {
        if let Some(missing) = files.missing() {
            bail!(
                "{} is missing: run scripts/setup.sh to install the Kokoro voice",
                missing.display()
            );
        }
        let started = Instant::now();
        let environment = runtime(&files.runtime)?;
        let corrupt = |what: &Path| {
            format!(
                "cannot load {} (corrupt or incomplete? delete it and run scripts/setup.sh)",
                what.display()
            )
        };
        let session = Session::builder(environment)
            .map_err(|e| eyre!("{e}"))
            .and_then(|b| {
                b.with_intra_threads(threads.max(1))
                    .map_err(|e| eyre!("{e}"))
            })
            .and_then(|b| b.with_inter_threads(1).map_err(|e| eyre!("{e}")))
            // The node shares two cores with the language models and the recognizer:
            // threads that spin while waiting for work take the core from them.
            .and_then(|b| b.with_intra_op_spinning(false).map_err(|e| eyre!("{e}")))
            .and_then(|mut b| b.commit_from_file(&files.model).map_err(|e| eyre!("{e}")))
            .with_context(|| corrupt(&files.model))?;
        let vocab = std::fs::read_to_string(&files.vocab)
            .map_err(eyre::Report::from)
            .and_then(|json| Ok(Vocab::from_json(&json)?))
            .with_context(|| corrupt(&files.vocab))?;
        let styles = read_styles(&files.voices).with_context(|| corrupt(&files.voices))?;
        tracing::info!(
            voices = styles.names().collect::<Vec<_>>().join(","),
            threads,
            ms = started.elapsed().as_millis() as u64,
            "Kokoro loaded"
        );
        let run_options = Arc::new(RunOptions::new().map_err(|e| eyre!("{e}"))?);
        Ok(Self {
            run_options,
            session,
            vocab,
            styles,
            language: language.to_owned(),
            timeout: Duration::from_secs(10),
            voices: HashMap::new(),
        })
    }

    /// A handle that stops the call under way from another thread.
    pub fn canceller(&self) -> Cancel {
        Cancel(self.run_options.clone())
    }

    /// Clears a cancel, so that the next call runs. Call it before deciding whether the
    /// next text is still wanted: a cancel after that decision then stops the call.
    pub fn rearm(&self) {
        let _ = self.run_options.unterminate();
    }

    /// The packaged voices' names.
    pub fn voice_names(&self) -> Vec<String> {
        self.styles.names().map(str::to_owned).collect()
    }

    /// The voice `spec` names (`jf_alpha`, `jf_alpha*0.7+jm_kumo*0.3@1.1`), checked and
    /// blended once.
    pub fn voice(&mut self, spec: &str) -> eyre::Result<Voice> {
        if let Some(voice) = self.voices.get(spec) {
            return Ok(voice.clone());
        }
        let parsed = VoiceSpec::parse(spec)?;
        let voice = Voice {
            spec: spec.to_owned(),
            table: self.styles.blend(&parsed)?,
            speed: parsed.speed,
        };
        self.voices.insert(spec.to_owned(), voice.clone());
        Ok(voice)
    }

    /// The model's symbols for `text`: clause by clause through espeak-ng, marks kept.
    pub fn symbols(&self, text: &str) -> eyre::Result<String> {
        let cut = clauses(text);
        // Clauses of interjections have their own sounds; espeak-ng reads the rest.
        let fixed: Vec<Option<String>> = cut
            .iter()
            .map(|c| phonemes::interjections(c.words))
            .collect();
        let spoken: Vec<_> = cut
            .iter()
            .zip(&fixed)
            .filter(|(c, fixed)| !c.words.is_empty() && fixed.is_none())
            .map(|(c, _)| c)
            .collect();
        let lines: Vec<String> = spoken
            .iter()
            .map(|c| {
                format!(
                    "{}{}",
                    c.words,
                    c.mark.map(String::from).unwrap_or_default()
                )
            })
            .collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let mut ipa = if refs.is_empty() {
            Vec::new()
        } else {
            espeak::phonemes(&self.language, &refs, self.timeout)?
        };
        if ipa.len() != spoken.len() {
            // espeak-ng cut elsewhere: one call per clause keeps each mark in its place.
            ipa = refs
                .iter()
                .map(|line| {
                    espeak::phonemes(&self.language, &[line], self.timeout)
                        .map(|lines| lines.join(" "))
                })
                .collect::<eyre::Result<_>>()?;
        }
        let mut ipa = ipa.into_iter();
        let symbols = cut.iter().zip(fixed).map(|(clause, fixed)| match fixed {
            Some(symbols) => (clause, symbols),
            None if clause.words.is_empty() => (clause, String::new()),
            None => (
                clause,
                phonemes::to_symbols(&ipa.next().unwrap_or_default()),
            ),
        });
        Ok(phonemes::with_marks(symbols))
    }

    /// `text` spoken by `voice`, at [`SAMPLE_RATE`].
    pub fn synthesize(&mut self, voice: &Voice, text: &str) -> eyre::Result<Pcm> {
        let symbols = self.symbols(text)?;
        let tokens = self.vocab.tokens(&symbols);
        let mut samples = Vec::new();
        for batch in self.vocab.batches(&tokens) {
            samples.extend(self.run(voice, &batch)?);
        }
        Ok(Pcm {
            sample_rate: SAMPLE_RATE,
            samples,
        })
    }

    /// One call of the model: `tokens` (at most 510) padded with 0 at both ends.
    fn run(&mut self, voice: &Voice, tokens: &[i64]) -> eyre::Result<Vec<f32>> {
        let mut padded = Vec::with_capacity(tokens.len() + 2);
        padded.push(0);
        padded.extend_from_slice(tokens);
        padded.push(0);
        let style = style_row(&voice.table, tokens.len()).to_vec();
        let inputs = ort::inputs![
            "tokens" => Tensor::from_array(([1usize, padded.len()], padded)).map_err(|e| eyre!("{e}"))?,
            "style" => Tensor::from_array(([1usize, style.len()], style)).map_err(|e| eyre!("{e}"))?,
            "speed" => Tensor::from_array(([1usize], vec![voice.speed])).map_err(|e| eyre!("{e}"))?,
        ];
        let outputs = self
            .session
            .run_with_options(inputs, &*self.run_options)
            .map_err(|e| eyre!("Kokoro failed: {e}"))?;
        let (_, audio) = outputs["audio"]
            .try_extract_tensor::<f32>()
            .map_err(|e| eyre!("Kokoro's audio: {e}"))?;
        Ok(audio.to_vec())
    }
}

/// A peak above this is speech in Kokoro's output (its lead-in stays below 0.01).
pub const LOUD: f32 = 0.02;
/// What stays of Kokoro's lead-in before the first loud sample.
const LEAD_IN_MS: u32 = 100;
/// What stays of Kokoro's tail after the last loud sample: with the next clip's lead-in,
/// a pause of about 0.2 s between the phrases of a sentence and 0.4 s after its end.
const TAIL_MS: u32 = 100;
const SENTENCE_TAIL_MS: u32 = 300;

/// `pcm`, a clip of Kokoro's, as it is played: Kokoro opens every clip with about 400 ms
/// of silence and near-silence and closes it with 0.4–0.7 s more, a wait before each
/// turn's first word and, between the phrases of one sentence, a pause longer than the
/// one after it. A tenth of a second stays before the first loud sample (a soft first
/// sound is not cut), and after the last one a tenth, or 0.3 s when the clip
/// `ends_sentence`.
pub fn trim_for_playback(pcm: &mut Pcm, ends_sentence: bool) {
    let kept = audio_utils::trim_lead_in(&pcm.samples, pcm.sample_rate, LOUD, LEAD_IN_MS).len();
    pcm.samples.drain(..pcm.samples.len() - kept);
    let tail = if ends_sentence {
        SENTENCE_TAIL_MS
    } else {
        TAIL_MS
    };
    let kept = audio_utils::trim_tail(&pcm.samples, pcm.sample_rate, LOUD, tail).len();
    pcm.samples.truncate(kept);
}

/// ONNX Runtime, loaded once per process from `library` (one environment per process;
/// other ONNX models of the process share it).
pub fn runtime(library: &Path) -> eyre::Result<&'static Environment> {
    static RUNTIME: std::sync::OnceLock<Result<Environment, String>> = std::sync::OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            ort::init_from(library)
                .map_err(|e| e.to_string())?
                .with_name("kokoro")
                .with_telemetry(false)
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| {
            eyre!(
                "cannot load ONNX Runtime from {} ({e}): run scripts/setup.sh",
                library.display()
            )
        })
}

/// Every voice of the npz archive, as rows of 256 style values.
fn read_styles(path: &Path) -> eyre::Result<StyleBank> {
    let file = std::fs::File::open(path)?;
    let mut npz = ndarray_npy::NpzReader::new(file)?;
    let mut bank = StyleBank::default();
    for name in npz.names()? {
        let array: ndarray::Array3<f32> = npz.by_name(&name)?;
        let voice = name.trim_end_matches(".npy");
        let values: Vec<f32> = array.iter().copied().collect();
        bank.insert(voice, values)?;
    }
    if bank.names().next().is_none() {
        bail!("no voices in {}", path.display());
    }
    Ok(bank)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clip_keeps_a_tenth_of_a_second_before_and_a_pause_after_that_fits_its_end() {
        let rate = 24_000;
        let clip = || {
            let mut samples = vec![0.005; 9_600]; // 400 ms lead-in
            samples.extend(vec![0.5; 24_000]); // 1 s of speech
            samples.extend(vec![0.001; 14_400]); // 600 ms tail
            Pcm {
                sample_rate: rate,
                samples,
            }
        };
        let mut phrase = clip();
        trim_for_playback(&mut phrase, false);
        assert_eq!(phrase.samples.len(), 2_400 + 24_000 + 2_400);
        assert_eq!(phrase.samples[2_400], 0.5);
        let mut sentence = clip();
        trim_for_playback(&mut sentence, true);
        assert_eq!(sentence.samples.len(), 2_400 + 24_000 + 7_200);
        // Silence only: kept as it is.
        let mut quiet = Pcm {
            sample_rate: rate,
            samples: vec![0.001; 1_000],
        };
        trim_for_playback(&mut quiet, true);
        assert_eq!(quiet.samples.len(), 1_000);
    }
}
