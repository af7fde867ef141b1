// TEMP stub
use serde::{Deserialize, Serialize};
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Site {
    pub id: u32,
}
pub struct Instrumented {
    pub ptx: String,
    pub sites: Vec<Site>,
}
#[derive(Debug)]
pub struct InstrumentError(pub String);
impl std::fmt::Display for InstrumentError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
pub const RECORD_BYTES: usize = 288;
pub fn instrument(_ptx: &str) -> Result<Instrumented, InstrumentError> {
    Err(InstrumentError("not yet".into()))
}
