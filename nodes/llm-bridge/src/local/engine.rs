//! One request on its sequence: the cache kept, prompts read, sampling, text sent on.

use model_schedule::plan_reuse;

use super::*;

pub(super) enum Outcome {
    Finished,
    Cancelled,
}

/// Shortest run of the cache moved down rather than read again (a shorter one costs
/// less to read than to shift).
const MIN_SHIFT_TOKENS: usize = 16;

pub(super) struct Run<'r, 'm> {
    pub(super) host: &'r Host<'m>,
    pub(super) job: &'r Job,
    pub(super) sequence: &'r mut Sequence,
    ticket: Ticket,
    /// The line of the sequence: a request waiting in it lends its priority to reading
    /// ahead.
    pub(super) line: Option<Arc<Line>>,
    /// A reading ahead gave way to a more urgent request before it read all it had to:
    /// the host lets the sequence go and tries again when that request is over.
    pub(super) gave_way: bool,
    /// The first tokens of this job's attempts whose every sentence was refused.
    pub(super) refused_openings: Vec<LlamaToken>,
    /// How long the request waited for its participant's earlier work (a reading
    /// ahead, a side request) before it had its sequence.
    pub(super) waited_ms: u64,
}

impl<'r, 'm> Run<'r, 'm> {
    pub(super) fn new(
        host: &'r Host<'m>,
        job: &'r Job,
        sequence: &'r mut Sequence,
        ticket: Ticket,
    ) -> Self {
        Self {
            host,
            job,
            sequence,
            ticket,
            line: None,
            gave_way: false,
            refused_openings: Vec::new(),
            waited_ms: 0,
        }
    }

    /// The ticket of the next step: its own, or the priority a request waiting behind
    /// it lends it.
    pub(super) fn ticket(&self) -> Ticket {
        boosted(self.ticket, self.line.as_deref())
    }

    /// [`Run::ticket`] as it will be when asked: a step waiting at the gate is lifted as
    /// soon as a request behind it lends it its priority.
    pub(super) fn lifted_ticket(&self) -> impl Fn() -> Ticket + use<> {
        let (ticket, line) = (self.ticket, self.line.clone());
        move || boosted(ticket, line.as_deref())
    }

    pub(super) fn config(&self) -> &LocalConfig {
        &self.host.config
    }

    /// The job was cancelled, or the node is leaving.
    pub(super) fn stopped(&self) -> bool {
        self.job.cancel.load(Ordering::SeqCst) || self.host.shutdown.load(Ordering::SeqCst)
    }

    /// Forgets the sequence's cache (it may be half-written).
    pub(super) fn forget(&mut self) {
        let id = self.sequence.id;
        let _ = self.host.step(&self.lifted_ticket(), &|| false, |context| {
            let _ = context.clear_kv_cache_seq(Some(id as u32), None, None);
        });
        self.sequence.cached.clear();
    }

    /// Reads the conversation so far into the cache, while the human it will answer is
    /// still speaking: the part of the prompt that stays when their words come as the
    /// next line (found by adding a line: the two prompts' common beginning).
    pub(super) fn prefill(&mut self) -> Result<(), String> {
        let started = Instant::now();
        if self.job.whole {
            // The participant's next turn as predicted: all of it but its last token.
            let tokens = self.turn_prompt()?.tokens;
            let ahead = tokens.len().saturating_sub(1);
            return self.read_ahead(&tokens[..ahead], started);
        }
        let mut prompt = LocalPrompt::new(&self.job.request.prompt);
        let answering = self
            .job
            .request
            .plan
            .as_ref()
            .is_some_and(|p| p.action == dialogue_planner::Move::AnswerHuman);
        let variants: Vec<LocalPrompt> = if answering {
            // The window as it will be with the human's line: were it to move then, the
            // answer would read everything again.
            let mut ahead = prompt.lines.clone();
            ahead.push(PromptLine::new("human", STAND_IN_WORDS[0]));
            prompt.lines = self.sequence.window.select(&ahead);
            prompt.lines.pop();
            // Two stand-ins for the words to come: what the two prompts share stays
            // (the answer's direction too).
            STAND_IN_WORDS
                .iter()
                .map(|words| prompt.clone().answering(words))
                .collect()
        } else {
            // Reading along: the lines so far, whatever comes after them (another line,
            // this participant's direction).
            prompt.lines = self.sequence.window.select(&prompt.lines);
            prompt.requests = vec![STAND_IN_DIRECTION.to_owned()];
            let mut more = prompt.clone();
            more.lines.push(PromptLine::new("human", STAND_IN_WORDS[0]));
            vec![prompt, more]
        };
        let room = self.config().context_tokens as usize;
        let max_tokens = self.config().max_tokens;
        let mut tokenized = Vec::new();
        for mut variant in variants {
            let (tokens, _) = variant
                .fit(false, room, max_tokens, |chat| self.tokenize_chat(chat))
                .map_err(|e| e.to_string())?;
            tokenized.push(tokens);
        }
        let tokens = &tokenized[0];
        let stable = tokens
            .iter()
            .zip(&tokenized[1])
            .take_while(|(a, b)| a == b)
            .count();
        let stable = stable.min(tokens.len().saturating_sub(1));
        self.read_ahead(&tokens[..stable], started)
    }

    /// Reads `tokens` into the cache at its request's priority, giving way to any more
    /// urgent request at the gate (the turn that will use it waits for the sequence
    /// instead: it would read the same tokens itself), and leaving at once when a newer
    /// reading of the same participant replaced it (it would otherwise hold the sequence,
    /// waiting at the gate behind another participant's turn, while the newer one, an
    /// answer's, waits behind it).
    fn read_ahead(&mut self, tokens: &[LlamaToken], started: Instant) -> Result<(), String> {
        let host = self.host;
        let (ticket, line) = (self.ticket, self.line.clone());
        let replaced = self.job.cancel.clone();
        let yields = move || {
            replaced.load(Ordering::SeqCst) || host.urgent_waiting(boosted(ticket, line.as_deref()))
        };
        // Even the cache's trimming gives way: waiting at the gate, this reading holds the
        // participant's sequence, which a more urgent side request wants to copy.
        let Some(reused) = self.keep_cached_unless(tokens, &yields) else {
            self.gave_way = true;
            return Ok(());
        };
        let interrupted = self.read_prompt(tokens, reused, None, &yields)?.is_none();
        // Interrupted by more urgent work, not replaced: what it read stays in the cache,
        // and the rest is read once that work is over. Left half-read, the participant's
        // turn would read the rest itself, while the listener waits (a student's first
        // line came 3-5 s after the line before it, 194 of its 202 tokens read then).
        self.gave_way = interrupted && !self.stopped();
        tracing::debug!(
            participant = %self.job.participant,
            tokens = tokens.len(),
            reused,
            whole = self.job.whole,
            complete = !interrupted,
            ms = started.elapsed().as_millis() as u64,
            "read the conversation ahead"
        );
        Ok(())
    }

    /// Makes the cache hold the longest part of `tokens` it can without reading: the
    /// common beginning stays, and the lines after those that left the window move down
    /// to close the gap. Returns how many tokens of `tokens` it holds.
    pub(super) fn keep_cached(&mut self, tokens: &[LlamaToken]) -> usize {
        self.keep_cached_unless(tokens, &|| false).unwrap_or(0)
    }

    /// [`Run::keep_cached`], unless `stop` says so while it waits at the gate: `None`,
    /// and the cache is as it was.
    pub(super) fn keep_cached_unless(
        &mut self,
        tokens: &[LlamaToken],
        stop: &dyn Fn() -> bool,
    ) -> Option<usize> {
        let ids = |t: &[LlamaToken]| t.iter().map(|t| t.0).collect::<Vec<_>>();
        let stale = std::mem::take(&mut self.sequence.stale);
        if stale || !self.config().prefix_reuse {
            self.sequence.cached.clear();
        }
        let plan = plan_reuse(&ids(&self.sequence.cached), &ids(tokens), MIN_SHIFT_TOKENS);
        if plan.read_from < tokens.len().saturating_sub(1) && plan.keep < self.sequence.cached.len()
        {
            // Where the kept prefix ends: what the cache held there and what the prompt
            // says instead (why tokens are read again).
            let text = |t: &[LlamaToken]| {
                let vocab = self.host.model.vocab();
                t.iter()
                    .take(12)
                    .map(|t| {
                        String::from_utf8_lossy(&vocab.token_to_piece(*t, false, None)).into_owned()
                    })
                    .collect::<String>()
            };
            tracing::debug!(
                participant = %self.job.participant,
                keep = plan.keep,
                cached = self.sequence.cached.len(),
                was = ?text(&self.sequence.cached[plan.keep..]),
                now = ?text(&tokens[plan.keep..]),
                "the cache differs from the prompt"
            );
        }
        let id = self.sequence.id;
        let len = self.sequence.cached.len() as u32;
        let done = self.host.step(&self.lifted_ticket(), stop, |context| {
            let seq = Some(id as u32);
            if stale || len == 0 {
                return context.clear_kv_cache_seq(seq, None, None).unwrap_or(false);
            }
            match plan.shift {
                Some(shift) => {
                    let (from, to) = (shift.from as u32, (shift.from + shift.len) as u32);
                    context
                        .clear_kv_cache_seq(seq, Some(to), None)
                        .unwrap_or(false)
                        && context
                            .clear_kv_cache_seq(seq, Some(plan.keep as u32), Some(from))
                            .unwrap_or(false)
                        && context
                            .kv_cache_seq_add(id, Some(from), Some(to), -(shift.by as i32))
                            .is_ok()
                }
                None => context
                    .clear_kv_cache_seq(seq, Some(plan.keep as u32), None)
                    .unwrap_or(false),
            }
        });
        match done {
            // Nothing was done: the cache holds what it held (flagged stale again if it
            // was).
            None if stop() => {
                self.sequence.stale |= stale;
                return None;
            }
            Some(true) => {}
            _ => {
                self.forget();
                return Some(0);
            }
        }
        if stale || len == 0 {
            return Some(0);
        }
        let cached = &mut self.sequence.cached;
        if let Some(shift) = plan.shift {
            cached.truncate(shift.from + shift.len);
            cached.drain(plan.keep..shift.from);
            tracing::debug!(participant = %self.job.participant, moved = shift.len, by = shift.by, "lines that left the window shifted out of the cache");
        } else {
            cached.truncate(plan.keep);
        }
        Some(plan.read_from)
    }

    /// Computes `tokens[from..]` into the cache in slices, passing the gate between them
    /// (`None`: `stop` said so before the end). With a `sampler`, the last token's logits
    /// are kept and the reply's first token is sampled in the same step.
    pub(super) fn read_prompt(
        &mut self,
        tokens: &[LlamaToken],
        from: usize,
        mut sampler: Option<(&mut LlamaSampler, &[(LlamaToken, f32)])>,
        stop: &dyn Fn() -> bool,
    ) -> Result<Option<Option<LlamaToken>>, String> {
        let id = self.sequence.id;
        let mut batch = LlamaBatch::new(512, 1);
        let mut position = from;
        let mut first = None;
        while position < tokens.len() {
            if stop() || self.stopped() {
                return Ok(None);
            }
            let end = (position + self.ticket().priority.prompt_slice()).min(tokens.len());
            let last = end == tokens.len();
            batch.clear();
            for (i, token) in tokens[position..end].iter().enumerate() {
                let at = position + i;
                batch
                    .add(
                        *token,
                        at as i32,
                        &[id],
                        sampler.is_some() && last && at + 1 == tokens.len(),
                    )
                    .map_err(|e| format!("batch: {e}"))?;
            }
            let sampler = sampler.as_mut().filter(|_| last);
            let result = self.host.step(&self.lifted_ticket(), stop, |context| {
                context
                    .decode(&mut batch)
                    .map_err(|e| format!("the model failed on the prompt: {e}"))?;
                Ok::<_, String>(
                    sampler.map(|(s, bias)| sample(s, context, batch.n_tokens() - 1, bias)),
                )
            });
            let Some(result) = result else {
                return Ok(None);
            };
            first = result?;
            self.sequence
                .cached
                .extend_from_slice(&tokens[position..end]);
            position = end;
        }
        Ok(Some(first))
    }

    /// Goes back to position `at` of the cache (the start of a refused sentence): what
    /// follows is dropped, and the token before it is computed again for the logits
    /// the next token is sampled from.
    pub(super) fn rewind_to(
        &mut self,
        at: usize,
        sampler: &mut LlamaSampler,
        bias: &[(LlamaToken, f32)],
    ) -> Result<Option<LlamaToken>, String> {
        let before = at - 1;
        let token = self.sequence.cached[before];
        let id = self.sequence.id;
        let dropped = self.host.step(&self.lifted_ticket(), &|| false, |context| {
            context
                .clear_kv_cache_seq(Some(id as u32), Some(before as u32), None)
                .unwrap_or(false)
        });
        if dropped != Some(true) {
            return Err("the model's cache could not go back to the sentence".to_owned());
        }
        self.sequence.cached.truncate(before);
        self.advance(token, sampler, bias)
    }

    /// Computes `token` (the last one sampled) and samples the next one, in one step.
    pub(super) fn advance(
        &mut self,
        token: LlamaToken,
        sampler: &mut LlamaSampler,
        bias: &[(LlamaToken, f32)],
    ) -> Result<Option<LlamaToken>, String> {
        let mut batch = LlamaBatch::new(1, 1);
        batch
            .add(
                token,
                self.sequence.cached.len() as i32,
                &[self.sequence.id],
                true,
            )
            .map_err(|e| format!("batch: {e}"))?;
        let cancel = self.job.cancel.clone();
        let stop = move || cancel.load(Ordering::SeqCst);
        let result = self.host.step(&self.lifted_ticket(), &stop, |context| {
            context
                .decode(&mut batch)
                .map_err(|e| format!("the model failed while generating: {e}"))?;
            Ok::<_, String>(sample(sampler, context, 0, bias))
        });
        match result {
            None => Ok(None),
            Some(next) => {
                self.sequence.cached.push(token);
                next.map(Some)
            }
        }
    }

    pub(super) fn send(&self, text: String, first: &mut Option<u64>, started: Instant) {
        self.send_filtered(
            Filtered {
                text,
                ..Filtered::default()
            },
            first,
            started,
        );
    }

    /// What the filter let through, marked when it ends a whole sentence.
    pub(super) fn send_filtered(
        &self,
        filtered: Filtered,
        first: &mut Option<u64>,
        started: Instant,
    ) {
        if filtered.text.is_empty() {
            return;
        }
        first.get_or_insert_with(|| started.elapsed().as_millis() as u64);
        let _ = self.job.events.send(BackendEvent::Chunk {
            question_id: self.job.request.question_id,
            text: filtered.text,
            ends_sentence: filtered.ends_sentence,
        });
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
        let model = self.host.model;
        let text = model
            .apply_chat_template(&self.host.template, &messages, true)
            .map_err(|e| format!("the model's chat template failed: {e}"))?;
        // The template writes the special tokens itself; parse them as such.
        Ok(model.vocab().tokenize(text.as_bytes(), true, true))
    }
}

fn boosted(ticket: Ticket, line: Option<&Line>) -> Ticket {
    match line.and_then(Line::boost) {
        Some(priority) if priority < ticket.priority => Ticket { priority, ..ticket },
        _ => ticket,
    }
}
