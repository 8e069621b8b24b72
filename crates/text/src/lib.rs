//! The text rules every core shares, so that two parts of the project never disagree
//! about what a word, a sentence or a question is:
//!
//! - [`script`]: which script a character is written in (one range table).
//! - [`words`]: lower-case words, stopwords, stems, abbreviations, sentences, whether a
//!   sentence or a line asks, phrase openers.
//! - [`count`]: the word count of ratio balancing (a CJK character one word each).

pub mod count;
pub mod script;
pub mod words;

pub use count::count_words;
