// TEMP stub
use super::instrument::Site;
pub struct Record;
#[derive(Debug)]
pub struct DecodeError(pub String);
impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
pub fn decode(_b: &[u8], _s: &[Site]) -> Result<Vec<Record>, DecodeError> {
    Ok(vec![])
}
