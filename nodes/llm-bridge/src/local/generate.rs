//! One reply generated: read ahead, sampled again when every sentence is refused, filtered,
//! stopped on a cancel.

use super::*;

impl Run<'_, '_> {
    /// The turn's prompt as the model reads it: the window of lines, the human's words
    /// it answers or the conductor's instruction it follows, fitted to the context.
    pub(super) fn turn_prompt(&mut self) -> Result<TurnPrompt, String> {
        let job = self.job;
        let request = &job.request;
        let window = &mut self.sequence.window;
        let mut prompt = ReplyPolicy::prompt_in_window(request, |lines| window.select(lines));
        let room = self.config().context_tokens as usize;
        let max_tokens = self.config().max_tokens;
        let (tokens, chat) = prompt
            .fit(request.json, room, max_tokens, |chat| {
                self.tokenize_chat(chat)
            })
            .map_err(|e| match e {
                FitError::Measure(e) => e,
                too_long => format!("{too_long} (LLM_CONTEXT_TOKENS)"),
            })?;
        Ok(TurnPrompt {
            prompt,
            tokens,
            chat,
        })
    }

    pub(super) fn generate(&mut self) -> Result<Outcome, String> {
        let job = self.job;
        let request = &job.request;
        let started = job.received;
        let TurnPrompt {
            prompt,
            tokens,
            chat,
        } = self.turn_prompt()?;
        let policy = ReplyPolicy::new(
            request,
            &job.persona,
            &prompt,
            &chat,
            self.config().max_words,
        );
        let room = self.config().context_tokens as usize;
        let max_tokens = self.config().max_tokens;
        // What the guard would refuse, made unlikely while sampling (not for JSON: its
        // grammar decides).
        let steering = if request.json {
            Steering::default()
        } else {
            self.steering(&prompt.lines, policy.asking(), policy.taking_up())
        };
        // A reply whose every sentence was refused (an echo, filler, another's name) is
        // sampled again, a little warmer, a bounded number of times.
        // An attempt that follows one refused for asking no question starts on a question
        // word.
        let mut insisting = false;
        for attempt in 0..=RESAMPLES {
            let afresh = policy
                .afresh_point()
                .filter(|_| attempt == RESAMPLES)
                .and_then(|point| {
                    match prompt
                        .afresh(point)
                        .fit(false, room, max_tokens, |chat| self.tokenize_chat(chat))
                    {
                        Ok((fresh, _)) => Some(fresh),
                        // The same prompt once more: the turn still gets its last attempt.
                        Err(e) => {
                            tracing::debug!(error = %e, "the turn could not start afresh");
                            None
                        }
                    }
                });
            let sampling = (policy.filter(attempt), &steering, insisting);
            let (outcome, filter) = match afresh {
                // In the aside sequence: the participant's cache keeps the conversation.
                Some(fresh) => {
                    self.generate_aside(&fresh, started, sampling, (&policy, attempt))?
                }
                None => {
                    let reused = self.keep_cached(&tokens);
                    self.generate_from(&tokens, reused, started, sampling, (&policy, attempt))?
                }
            };
            insisting = ReplyPolicy::insists_on_a_question(&filter);
            if !matches!(outcome, Outcome::Finished) || !policy.asks_again(&filter, attempt) {
                if matches!(outcome, Outcome::Finished)
                    && let Some(words) =
                        crate::backend::last_words(&policy, &filter, request.question_id)
                {
                    self.send(words.to_owned(), &mut None, started);
                }
                return Ok(outcome);
            }
            tracing::debug!(
                question_id = request.question_id,
                attempt,
                refused = ?filter.refused(),
                "every sentence refused; sampling again"
            );
        }
        unreachable!("the last attempt returns")
    }

    /// [`Run::generate_from`] in the host's aside sequence, a copy of this participant's
    /// made for it: a prompt that is not the conversation (a turn started afresh) reads
    /// only what differs from the participant's last prompt, and leaves the participant's
    /// own cache as its turns left it (else its next request would read the whole
    /// conversation again).
    pub(super) fn generate_aside(
        &mut self,
        tokens: &[LlamaToken],
        started: Instant,
        sampling: (OutputFilter, &Steering, bool),
        policy: (&ReplyPolicy, u32),
    ) -> Result<(Outcome, OutputFilter), String> {
        let host = self.host;
        // Another participant's fresh start holds it: this one starts afresh on its own
        // sequence, as before there was one.
        let Ok(mut aside) = host.aside.try_lock() else {
            let reused = self.keep_cached(tokens);
            return self.generate_from(tokens, reused, started, sampling, policy);
        };
        let source = &*self.sequence;
        let copied = host.step(&self.lifted_ticket(), &|| false, |context| {
            copy_cache(context, Some(source), &mut aside)
        });
        if copied.is_none() {
            aside.cached.clear();
        }
        aside.turns = source.turns;
        let mut run = Run::new(host, self.job, &mut aside, self.ticket());
        run.line = self.line.clone();
        run.waited_ms = self.waited_ms;
        let reused = run.keep_cached(tokens);
        let result = run.generate_from(tokens, reused, started, sampling, policy);
        self.sequence.turns += 1;
        result
    }

    pub(super) fn generate_from(
        &mut self,
        tokens: &[LlamaToken],
        reused: usize,
        started: Instant,
        (mut filter, steering, insisting): (OutputFilter, &Steering, bool),
        (policy, attempt): (&ReplyPolicy, u32),
    ) -> Result<(Outcome, OutputFilter), String> {
        let job = self.job;
        let question_id = job.request.question_id;
        let mut sampler = self.sampler(job.request.json, attempt)?;
        // (Not under a grammar: it would take the prompt for the reply.)
        if !job.request.json && job.request.opens_with.is_empty() {
            // Repetition is judged against the conversation and the direction, not only
            // against the reply's own tokens: the prompt's last tokens go through the
            // samplers' history first.
            let from = tokens.len().saturating_sub(REPETITION_WINDOW_TOKENS);
            sampler.accept_many(&tokens[from..]);
        }
        // The prompt, in slices, so that a cancel is seen between them; the reply's first
        // token is sampled with the last slice.
        let cancel = job.cancel.clone();
        let stop = move || cancel.load(Ordering::SeqCst);
        let mut bias = steering.at("", insisting, attempt);
        // An attempt after one whose every sentence was refused does not open the same way.
        bias.extend(
            self.refused_openings
                .iter()
                .map(|&t| (t, agent_bridge::local::steer::REFUSED_START_BIAS)),
        );
        let Some(first) = self.read_prompt(tokens, reused, Some((&mut sampler, &bias)), &stop)?
        else {
            return Ok((Outcome::Cancelled, filter));
        };
        let prompt_ms = started.elapsed().as_secs_f64() * 1000.0;
        let mut next = first;
        // Where the reply's sentences began (in the cache and in the raw text), and the
        // refusals seen so far: a refused sentence is sampled again from its start, the
        // cache before it kept.
        let mut starts = vec![(self.sequence.cached.len(), 0usize)];
        let mut refusals = 0usize;
        let mut rewinds = 0u32;
        // The first token of each refused sentence, by where it began: a sentence sampled
        // again there starts otherwise (the same first token leads back towards the same
        // sentence, a little warmer or not).
        let mut refused_starts: Vec<(usize, LlamaToken)> = Vec::new();
        let mut utf8 = Utf8Stream::default();
        let mut first_text_ms = None;
        let mut generated = 0usize;
        let generation_started = Instant::now();
        let mut json = String::new();
        // What the model said before filtering, for the debug log.
        let mut raw = String::new();
        // Given up for a new attempt: what the filter still holds is not said.
        let mut abandoned = false;
        for _ in 0..self.config().max_tokens {
            if self.stopped() {
                return Ok((Outcome::Cancelled, filter));
            }
            let Some(token) = next else { break };
            let model = self.host.model;
            if model.vocab().is_eog(token) {
                break;
            }
            if agent_bridge::local::steer::at_sentence_start(&raw)
                && starts.last().is_some_and(|&(_, at)| at < raw.len())
            {
                starts.push((self.sequence.cached.len(), raw.len()));
            }
            generated += 1;
            let bytes = model.vocab().token_to_piece(token, false, None);
            let piece = utf8.push(&bytes);
            raw.push_str(&piece);
            let said = if job.request.json {
                json.push_str(&piece);
                Filtered::default()
            } else {
                let filtered = filter.push(&piece);
                if filtered.stop {
                    self.send_filtered(filtered, &mut first_text_ms, started);
                    break;
                }
                // A refused sentence: back to where it began, sampled again (another
                // stream, a little warmer), the cache before it kept. Not a stock
                // pleasantry ("You're right."): sampled again, the reply opens on another
                // ("Of course!") and the attempt is given up; left where it is, unsaid,
                // the model goes on to what it has to say.
                let refused = filter.refused()[refusals..]
                    .last()
                    .filter(|(why, _)| *why != agent_bridge::guard::Refusal::Pleasantry);
                let rewind_to = refused.map(|(_, sentence)| {
                    let raw_starts: Vec<usize> = starts.iter().map(|&(_, at)| at).collect();
                    starts[agent_bridge::local::steer::refused_sentence_start(
                        &raw,
                        &raw_starts,
                        sentence,
                    )]
                });
                refusals = filter.refused().len();
                if let Some((at, raw_at)) = rewind_to
                    && rewinds < REWINDS
                    && at >= tokens.len().max(1)
                    && !job.request.json
                    && job.request.opens_with.is_empty()
                {
                    rewinds += 1;
                    if let Some(&start) = self.sequence.cached.get(at) {
                        refused_starts.push((at, start));
                    }
                    self.send_filtered(filtered, &mut first_text_ms, started);
                    raw.truncate(raw_at);
                    starts.retain(|&(_, start)| start <= raw_at);
                    filter.rewind(raw.ends_with('\n'));
                    utf8 = Utf8Stream::default();
                    sampler = self.sampler(false, attempt + 1 + rewinds * RESAMPLES)?;
                    let kept = &self.sequence.cached
                        [tokens.len().saturating_sub(REPETITION_WINDOW_TOKENS)..at];
                    sampler.accept_many(kept);
                    // A statement refused where a question was due: the sentence
                    // sampled again starts with a question word.
                    let insisting = matches!(
                        filter.refused().last(),
                        Some((agent_bridge::guard::Refusal::NoQuestion, _))
                    );
                    let mut bias = steering.at(&raw, insisting, attempt);
                    bias.extend(
                        refused_starts
                            .iter()
                            .filter(|(start, _)| *start == at)
                            .map(|&(_, t)| (t, agent_bridge::local::steer::REFUSED_START_BIAS)),
                    );
                    match self.rewind_to(at, &mut sampler, &bias)? {
                        Some(token) => next = Some(token),
                        None => return Ok((Outcome::Cancelled, filter)),
                    }
                    continue;
                }
                // Two sentences refused and nothing said: this sample is going nowhere;
                // a new attempt costs less than the rest of this one.
                if policy.gives_up(&filter, attempt) {
                    abandoned = true;
                    break;
                }
                filtered
            };
            self.send_filtered(said, &mut first_text_ms, started);
            let bias = steering.at(&raw, false, attempt);
            match self.advance(token, &mut sampler, &bias)? {
                Some(token) => next = Some(token),
                None => return Ok((Outcome::Cancelled, filter)),
            }
        }
        if job.request.json {
            self.send(json, &mut first_text_ms, started);
        } else if !abandoned {
            let rest = filter.finish();
            self.send_filtered(rest, &mut first_text_ms, started);
        }
        if filter.emitted().trim().is_empty()
            && !filter.refused().is_empty()
            && let Some(opening) = first
        {
            self.refused_openings.push(opening);
        }
        self.sequence.turns += 1;
        let seconds = generation_started.elapsed().as_secs_f64().max(1e-6);
        {
            let mut stats = lock(&self.host.stats);
            let last = stats.get(&job.participant).copied();
            // The prompt a listener waits for is the first attempt's.
            let first = match last {
                Some(s) if attempt > 0 => s,
                _ => GenerationStats {
                    prompt_tokens: tokens.len(),
                    reused_tokens: reused,
                    prompt_ms,
                    ..GenerationStats::default()
                },
            };
            stats.insert(
                job.participant.clone(),
                GenerationStats {
                    generated_tokens: generated,
                    generation_ms: seconds * 1000.0,
                    attempts: attempt + 1,
                    ..first
                },
            );
        }
        tracing::debug!(question_id, raw = %raw, spoken = %filter.emitted(), refused = ?filter.refused(), "model output");
        tracing::info!(
            participant = %job.participant,
            question_id,
            priority = job.priority.as_str(),
            attempt,
            rewinds,
            prompt_tokens = tokens.len(),
            reused_tokens = reused,
            read_tokens = tokens.len() - reused,
            waited_ms = self.waited_ms,
            prompt_ms = prompt_ms as u64,
            first_text_ms = first_text_ms.unwrap_or(0),
            generated_tokens = generated,
            refused = filter.refused().len(),
            tokens_per_s = format!("{:.0}", generated as f64 / seconds),
            "generated"
        );
        Ok((Outcome::Finished, filter))
    }
}

/// A turn's prompt, as [`Run::turn_prompt`] builds it.
pub(super) struct TurnPrompt {
    pub(super) prompt: LocalPrompt,
    pub(super) tokens: Vec<LlamaToken>,
    pub(super) chat: Vec<agent_bridge::ChatMessage>,
}

/// Words that stand for the human's while the answer is read ahead.
pub(super) const STAND_IN_WORDS: [&str; 2] = ["What is it?", "Can you show me again, please?"];
/// What stands for a turn's direction while the conversation is read along.
pub(super) const STAND_IN_DIRECTION: &str = "Say one thing.";

/// How many refused sentences of one attempt are sampled again from their start.
pub(super) const REWINDS: u32 = 3;

#[derive(Default)]
pub(super) struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    pub(super) fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        match std::str::from_utf8(&self.pending) {
            Ok(text) => {
                let text = text.to_owned();
                self.pending.clear();
                text
            }
            Err(e) => {
                let valid = e.valid_up_to();
                let text = String::from_utf8_lossy(&self.pending[..valid]).into_owned();
                if e.error_len().is_some() {
                    // Not a split character but bad bytes: drop them.
                    self.pending.clear();
                } else {
                    self.pending.drain(..valid);
                }
                text
            }
        }
    }
}
