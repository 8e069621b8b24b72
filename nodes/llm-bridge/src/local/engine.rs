//! The model and its context: the cache kept, prompts read, sampling, text sent on.

use super::*;

pub(super) enum Outcome {
    Finished,
    Cancelled,
}

pub(super) struct Engine<'m> {
    pub(super) model: &'m LlamaModel,
    pub(super) context: LlamaContext<'m>,
    pub(super) template: LlamaChatTemplate,
    /// The tokens whose keys and values are in the context's cache, in order.
    pub(super) cached: Vec<LlamaToken>,
    pub(super) window: PromptWindow,
    pub(super) names: Vec<String>,
    pub(super) persona: Persona,
    pub(super) config: LocalConfig,
    pub(super) turns: u32,
    pub(super) stats: Arc<std::sync::Mutex<Option<GenerationStats>>>,
    pub(super) shutdown: Arc<AtomicBool>,
}

impl Engine<'_> {
    /// The job was cancelled, or the node is leaving.
    pub(super) fn stopped(&self, job: &Job) -> bool {
        job.cancel.load(Ordering::SeqCst) || self.shutdown.load(Ordering::SeqCst)
    }

    pub(super) fn reset(&mut self) {
        self.context.clear_kv_cache();
        self.cached.clear();
    }

    /// Reads the conversation so far into the cache, while the human it will answer is
    /// still speaking: the part of the prompt that stays when their words come as the
    /// next line (found by adding a line: the two prompts' common beginning). A turn that
    /// comes meanwhile waits: it would read the same tokens first.
    pub(super) fn prefill(&mut self, job: &Job) -> Result<(), String> {
        let started = Instant::now();
        let mut prompt =
            LocalPrompt::from_messages(&job.request.messages, self.persona.spoken_name());
        // The window as it will be with the human's line: were it to move then, the
        // answer would read everything again.
        let mut ahead = prompt.lines.clone();
        ahead.push(format!("human: {}", STAND_IN_WORDS[0]));
        prompt.lines = self.window.select(&ahead);
        prompt.lines.pop();
        let room = self.config.context_tokens as usize;
        // Two stand-ins for the words to come: what the two prompts share stays.
        let mut tokenized = Vec::new();
        for words in STAND_IN_WORDS {
            let (tokens, _) = prompt
                .clone()
                .answering(words)
                .fit(false, room, self.config.max_tokens, |chat| {
                    self.tokenize_chat(chat)
                })
                .map_err(|e| e.to_string())?;
            tokenized.push(tokens);
        }
        let ids = |t: &[LlamaToken]| t.iter().map(|t| t.0).collect::<Vec<_>>();
        let tokens = &tokenized[0];
        let stable = reusable_prefix(&ids(&tokenized[1]), &ids(tokens));
        let reused = self.keep_cached(&tokens[..stable]);
        let shutdown = self.shutdown.clone();
        let interrupted = self
            .read_prompt(&tokens[..stable], reused, false, || {
                shutdown.load(Ordering::SeqCst)
            })?
            .is_none();
        tracing::debug!(
            tokens = stable,
            reused,
            complete = !interrupted,
            ms = started.elapsed().as_millis() as u64,
            "prefilled the conversation"
        );
        Ok(())
    }

    /// Keeps the cache's common beginning with `tokens` and drops the rest; returns how
    /// many tokens are kept.
    pub(super) fn keep_cached(&mut self, tokens: &[LlamaToken]) -> usize {
        let reused = reusable_prefix(
            &self.cached.iter().map(|t| t.0).collect::<Vec<_>>(),
            &tokens.iter().map(|t| t.0).collect::<Vec<_>>(),
        );
        if self
            .context
            .clear_kv_cache_seq(Some(0), Some(reused as u32), None)
            .unwrap_or(false)
        {
            self.cached.truncate(reused);
            reused
        } else {
            self.reset();
            0
        }
    }

    /// Computes `tokens[from..]` into the cache in slices of 64, so that `stop` is seen
    /// between them (`None`: stopped early). `logits` asks for the last token's logits
    /// (a reply follows); returns where they are in the last slice.
    pub(super) fn read_prompt(
        &mut self,
        tokens: &[LlamaToken],
        from: usize,
        logits: bool,
        stop: impl Fn() -> bool,
    ) -> Result<Option<i32>, String> {
        let mut batch = LlamaBatch::new(512, 1);
        let mut position = from;
        while position < tokens.len() {
            if stop() {
                return Ok(None);
            }
            let end = (position + 64).min(tokens.len());
            batch.clear();
            for (i, token) in tokens[position..end].iter().enumerate() {
                let at = position + i;
                batch
                    .add(*token, at as i32, &[0], logits && at + 1 == tokens.len())
                    .map_err(|e| format!("batch: {e}"))?;
            }
            self.context
                .decode(&mut batch)
                .map_err(|e| format!("the model failed on the prompt: {e}"))?;
            self.cached.extend_from_slice(&tokens[position..end]);
            position = end;
        }
        Ok(Some((batch.n_tokens() - 1).max(0)))
    }

    pub(super) fn send(&self, job: &Job, text: String, first: &mut Option<u64>, started: Instant) {
        if text.is_empty() {
            return;
        }
        first.get_or_insert_with(|| started.elapsed().as_millis() as u64);
        let _ = job.events.send(BackendEvent::Chunk {
            question_id: job.request.question_id,
            text,
        });
    }

    pub(super) fn sampler(&self, json: bool, attempt: u32) -> Result<LlamaSampler, String> {
        // Seeded: the same conversation gives the same words; each turn (and each new
        // attempt at it) its own stream.
        let seed = self
            .config
            .seed
            .wrapping_add(self.turns.wrapping_mul(7919))
            .wrapping_add(attempt.wrapping_mul(104_729));
        let mut chain = Vec::new();
        if json {
            chain.push(
                LlamaSampler::grammar(self.model, JSON_OBJECT_GRAMMAR, "root")
                    .map_err(|e| format!("JSON grammar: {e}"))?,
            );
            chain.push(LlamaSampler::greedy());
        } else {
            // DRY: continuing a sequence that stands in the recent conversation costs
            // more the longer the copy gets; single words (the topic's) stay free.
            chain.push(LlamaSampler::dry(
                self.model,
                DRY_MULTIPLIER,
                DRY_BASE,
                DRY_ALLOWED_LENGTH,
                REPETITION_WINDOW_TOKENS as i32,
                ["\n", ":", "\"", "*"],
            ));
            chain.push(LlamaSampler::penalties(
                self.model.n_vocab(),
                64,
                1.15,
                0.0,
                0.0,
            ));
            chain.push(LlamaSampler::top_k(40));
            chain.push(LlamaSampler::top_p(0.9, 1));
            chain.push(LlamaSampler::temp(
                self.config.temperature + RESAMPLE_WARMING * attempt as f32,
            ));
            chain.push(LlamaSampler::dist(seed));
        }
        Ok(LlamaSampler::chain_simple(chain))
    }

    pub(super) fn tokenize_chat(
        &self,
        chat: &[agent_bridge::ChatMessage],
    ) -> Result<Vec<LlamaToken>, String> {
        let messages = chat
            .iter()
            .map(|m| LlamaChatMessage::new(m.role.as_str().to_owned(), m.content.replace('\0', "")))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("chat message: {e}"))?;
        let text = self
            .model
            .apply_chat_template(&self.template, &messages, true)
            .map_err(|e| format!("the model's chat template failed: {e}"))?;
        // The template writes the special tokens itself; parse them as such.
        Ok(self.model.vocab().tokenize(text.as_bytes(), true, true))
    }
}

/// How much warmer each new attempt samples.
pub(super) const RESAMPLE_WARMING: f32 = 0.15;
/// How many of the prompt's last tokens (the recent conversation and the direction) the
/// repetition samplers know before the reply starts.
pub(super) const REPETITION_WINDOW_TOKENS: usize = 384;
/// DRY settings (llama.cpp's recommended multiplier and base); sequences of up to three
/// tokens repeat freely, so that multi-token words of the topic are not penalised.
pub(super) const DRY_MULTIPLIER: f32 = 0.8;
pub(super) const DRY_BASE: f32 = 1.75;
pub(super) const DRY_ALLOWED_LENGTH: i32 = 3;

/// A flat JSON object of strings, numbers and booleans: what intents, bids and moods are.
pub(super) const JSON_OBJECT_GRAMMAR: &str = r#"
root   ::= "{" ws pair ( ws "," ws pair )* ws "}"
pair   ::= string ws ":" ws value
value  ::= string | number | "true" | "false"
string ::= "\"" [a-zA-Z0-9 _.,!?'-]{0,60} "\""
number ::= "-"? [0-9]{1,4} ( "." [0-9]{1,3} )?
ws     ::= [ ]?
"#;
