//! (to be written) The lesson's `expect` claims: parsed at load, evaluated against results.
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    pub text: String,
}
