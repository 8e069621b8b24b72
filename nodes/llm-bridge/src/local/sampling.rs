//! How a reply is sampled: the samplers of an attempt (seeded, warmer on each try, DRY
//! against the recent conversation, a grammar for JSON or a held opening), and the
//! steering biases by where the reply is.

use agent_bridge::local::steer;

use super::*;

impl Run<'_, '_> {
    /// The tokens of the words a reply is steered against ([`agent_bridge::local::steer`]),
    /// by where they apply.
    pub(super) fn steering(
        &self,
        lines: &[PromptLine],
        asking: bool,
        answering: Option<&str>,
    ) -> Steering {
        let vocab = self.host.model.vocab();
        let mut steering = Steering {
            answering: answering.map(str::to_owned),
            ..Steering::default()
        };
        let persona = &self.job.persona;
        let own = [persona.name.as_str(), persona.spoken_name()];
        for steer in steer::steering(lines, asking, answering)
            .into_iter()
            .chain(steer::against_names(lines, own))
        {
            for spelling in [steer.word.clone(), format!(" {}", steer.word)] {
                let Some(first) = whole_word_token(&vocab, &spelling, &steer.word) else {
                    continue;
                };
                let list = match steer.place {
                    steer::Place::SentenceStart => &mut steering.sentence_start,
                    steer::Place::ReplyStart => &mut steering.reply_start,
                    steer::Place::AfterNoQuestion => &mut steering.after_no_question,
                    steer::Place::Anywhere => &mut steering.anywhere,
                    steer::Place::UntilAnswered => &mut steering.until_answered,
                };
                list.push((first, steer.bias));
            }
        }
        // A stock reply's second word, by its first (" welcome" after "You're").
        for (first, seconds) in steer::STOCK_SECOND_WORDS {
            for second in *seconds {
                if let Some(token) = whole_word_token(&vocab, &format!(" {second}"), second) {
                    steering.after_stock_opener.push((
                        *first,
                        token,
                        steer::STOCK_SECOND_WORD_BIAS,
                    ));
                }
            }
        }
        steering.end_of_reply = self.host.reply_ends.clone();
        steering.colon_breaks = self.host.colon_breaks.clone();
        steering
    }

    pub(super) fn sampler(&self, json: bool, attempt: u32) -> Result<LlamaSampler, String> {
        // Seeded: the same conversation gives the same words; each turn (and each new
        // attempt at it) its own stream.
        let seed = self
            .config()
            .seed
            .wrapping_add(self.sequence.turns.wrapping_mul(7919))
            .wrapping_add(attempt.wrapping_mul(104_729));
        let model = self.host.model;
        let mut chain = Vec::new();
        let opening = &self.job.request.opens_with;
        if !json && !opening.is_empty() {
            // Held to open with one of the words (a verdict), then free to the line's end.
            chain.push(
                LlamaSampler::grammar(model, &opening_grammar(opening), "root")
                    .map_err(|e| format!("opening grammar: {e}"))?,
            );
        }
        if json {
            chain.push(
                LlamaSampler::grammar(model, JSON_OBJECT_GRAMMAR, "root")
                    .map_err(|e| format!("JSON grammar: {e}"))?,
            );
            chain.push(LlamaSampler::greedy());
        } else {
            // DRY: continuing a sequence that stands in the recent conversation costs
            // more the longer the copy gets; single words (the topic's) stay free.
            chain.push(LlamaSampler::dry(
                model,
                DRY_MULTIPLIER,
                DRY_BASE,
                DRY_ALLOWED_LENGTH,
                REPETITION_WINDOW_TOKENS as i32,
                ["\n", ":", "\"", "*"],
            ));
            chain.push(LlamaSampler::penalties(model.n_vocab(), 64, 1.15, 0.0, 0.0));
            chain.push(LlamaSampler::top_k(40));
            chain.push(LlamaSampler::top_p(0.9, 1));
            chain.push(LlamaSampler::temp(
                self.config().temperature + RESAMPLE_WARMING * attempt as f32,
            ));
            chain.push(LlamaSampler::dist(seed));
        }
        Ok(LlamaSampler::chain_simple(chain))
    }
}

/// The token `spelling` starts with, when it is the whole of `word`: only such a token is
/// steered, since a prefix ("Th") would bend every word it starts.
fn whole_word_token(
    vocab: &llama_cpp_2::vocab::LlamaVocab<'_>,
    spelling: &str,
    word: &str,
) -> Option<LlamaToken> {
    let first = *vocab.tokenize(spelling.as_bytes(), false, false).first()?;
    let piece = String::from_utf8_lossy(&vocab.token_to_piece(first, false, None))
        .trim()
        .to_owned();
    (piece == word).then_some(first)
}

/// A grammar for a reply that opens with one of `words` and goes on to the end of the
/// line.
pub(super) fn opening_grammar(words: &[String]) -> String {
    let choices: Vec<String> = words
        .iter()
        .map(|w| format!("\"{}\"", w.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect();
    format!(r#"root ::= ({}) [^\n]*"#, choices.join(" | "))
}

/// The tokens that end a reply: the end of generation, and every piece with a line break
/// (a reply's lines end before the next speaker's label; ".\n" is one token).
pub(super) fn reply_ends(model: &LlamaModel) -> Vec<LlamaToken> {
    let vocab = model.vocab();
    (0..model.n_vocab())
        .map(LlamaToken)
        .filter(|&t| vocab.is_eog(t) || vocab.token_to_piece(t, false, None).contains(&b'\n'))
        .collect()
}

/// The tokens that put a colon and then a line break ([`steer::is_colon_break`]).
pub(super) fn colon_breaks(model: &LlamaModel) -> Vec<LlamaToken> {
    let vocab = model.vocab();
    (0..model.n_vocab())
        .map(LlamaToken)
        .filter(|&t| {
            steer::is_colon_break(&String::from_utf8_lossy(
                &vocab.token_to_piece(t, false, None),
            ))
        })
        .collect()
}

/// The tokens a reply is steered against, by where they apply.
#[derive(Debug, Default)]
pub(super) struct Steering {
    pub(super) sentence_start: Vec<(LlamaToken, f32)>,
    pub(super) reply_start: Vec<(LlamaToken, f32)>,
    pub(super) anywhere: Vec<(LlamaToken, f32)>,
    pub(super) after_no_question: Vec<(LlamaToken, f32)>,
    pub(super) until_answered: Vec<(LlamaToken, f32)>,
    /// A stock reply's second word, by its first ([`steer::STOCK_SECOND_WORDS`]).
    pub(super) after_stock_opener: Vec<(&'static str, LlamaToken, f32)>,
    /// The tokens that end a reply, held back while it has only promised, ends on its
    /// lead-in ([`steer::stops_short`]) or has not yet taken up the human's words.
    pub(super) end_of_reply: Vec<LlamaToken>,
    /// The tokens that end a line on a colon, shut everywhere as a reply's end after
    /// its colon is.
    pub(super) colon_breaks: Vec<LlamaToken>,
    /// The human's words the turn answers.
    pub(super) answering: Option<String>,
}

impl Steering {
    /// The biases for the next token of a reply that said `said` so far; `insisting` once
    /// a sentence was refused for asking no question. The human's words are pushed
    /// harder on each new `attempt`: the one before missed them.
    pub(super) fn at(&self, said: &str, insisting: bool, attempt: u32) -> Vec<(LlamaToken, f32)> {
        let mut bias = self.anywhere.clone();
        bias.extend(
            self.colon_breaks
                .iter()
                .map(|&t| (t, steer::END_AFTER_LEAD_IN_BIAS)),
        );
        if steer::at_sentence_start(said) {
            bias.extend_from_slice(&self.sentence_start);
            if insisting {
                bias.extend_from_slice(&self.after_no_question);
            }
        }
        if said.trim().is_empty() && !insisting {
            bias.extend_from_slice(&self.reply_start);
        }
        if let Some(first) = steer::stock_opener_so_far(said) {
            bias.extend(
                self.after_stock_opener
                    .iter()
                    .filter(|(f, _, _)| *f == first)
                    .map(|&(_, t, b)| (t, b)),
            );
        }
        let unanswered = self
            .answering
            .as_ref()
            .is_some_and(|asked| !steer::has_answered(asked, said));
        // A reply that has begun but not yet answered the human (it set up its example,
        // or offered to answer) must not end there either.
        if steer::ends_on_lead_in(said) {
            bias.extend(
                self.end_of_reply
                    .iter()
                    .map(|&t| (t, steer::END_AFTER_LEAD_IN_BIAS)),
            );
        } else if steer::stops_short(said) || (unanswered && !said.trim().is_empty()) {
            bias.extend(
                self.end_of_reply
                    .iter()
                    .map(|&t| (t, steer::END_AFTER_PROMISE_BIAS)),
            );
        }
        if unanswered && !self.until_answered.is_empty() {
            let push = 1.0 + attempt as f32;
            bias.extend(self.until_answered.iter().map(|&(t, b)| (t, b * push)));
        }
        bias
    }
}

/// Samples the next token at `idx`, the logits of the `bias` tokens moved first.
pub(super) fn sample(
    sampler: &mut LlamaSampler,
    context: &LlamaContext<'_>,
    idx: i32,
    bias: &[(LlamaToken, f32)],
) -> LlamaToken {
    if bias.is_empty() {
        return sampler.sample(context, idx);
    }
    let mut candidates = context.token_data_array_ith(idx);
    for (token, shift) in bias {
        // The candidates are in token order, one per token of the vocabulary.
        if let Some(data) = candidates.data.get_mut(token.0 as usize)
            && data.id() == *token
        {
            data.set_logit(data.logit() + shift);
        }
    }
    candidates.apply_sampler(sampler);
    let token = candidates
        .selected_token()
        .unwrap_or_else(|| sampler.sample(context, idx));
    sampler.accept(token);
    token
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn ends_held(steering: &Steering, said: &str) -> bool {
        steering
            .at(said, false, 0)
            .contains(&(LlamaToken(7), steer::END_AFTER_PROMISE_BIAS))
    }

    #[test]
    fn an_answer_does_not_end_before_it_takes_up_the_human_s_words() {
        let steering = Steering {
            end_of_reply: vec![LlamaToken(7)],
            answering: Some("Can you show me a derivative with actual numbers?".to_owned()),
            ..Steering::default()
        };
        assert!(!ends_held(&steering, ""), "nothing said: the start is free");
        assert!(ends_held(&steering, "Let's say f(x) = x squared."));
        assert!(!ends_held(
            &steering,
            "Its derivative is 2x, so at 3 it is 6."
        ));
        // An offer takes up the words and answers nothing, behind a label too (as the
        // model wrote it in a study session).
        for offer in [
            "Sure, Mr. River could definitely provide a derivative with actual numbers!",
            "Ms. Rivera: Sure, Mr. River could definitely provide a derivative with actual numbers! ",
        ] {
            assert!(ends_held(&steering, offer), "{offer}");
        }
        // A turn that answers nobody ends where it will.
        let free = Steering {
            end_of_reply: vec![LlamaToken(7)],
            ..Steering::default()
        };
        assert!(!ends_held(&free, "Let's say f(x) = x squared."));
    }

    #[test]
    fn a_reply_never_ends_on_its_colon() {
        let free = Steering {
            end_of_reply: vec![LlamaToken(7)],
            ..Steering::default()
        };
        let bias = |said: &str| {
            free.at(said, false, 0)
                .into_iter()
                .filter(|&(t, _)| t == LlamaToken(7))
                .map(|(_, b)| b)
                .sum::<f32>()
        };
        // Heard as a tutor's whole line, its pleasantry refused before it.
        assert_eq!(
            bias("You're correct! Let's proceed with your instruction:"),
            steer::END_AFTER_LEAD_IN_BIAS
        );
        assert_eq!(bias("Ms. Rivera: "), steer::END_AFTER_LEAD_IN_BIAS);
        // A promise's end is pushed against, not shut.
        assert_eq!(
            bias("Let me explain that you're right."),
            steer::END_AFTER_PROMISE_BIAS
        );
        assert_eq!(bias("The rule: multiply by the power."), 0.0);
        // A colon and a line break in one token: shut wherever the reply is.
        let breaks = Steering {
            colon_breaks: vec![LlamaToken(9)],
            ..Steering::default()
        };
        assert!(
            breaks
                .at("For example", false, 0)
                .contains(&(LlamaToken(9), steer::END_AFTER_LEAD_IN_BIAS))
        );
    }
}
