//! A compiled kernel's parameters, as its PTX `.entry` lists them: the sizes a launch's
//! arguments must have. Read from the PTX because the CUBIN's layout is not public.

/// The byte size of each parameter of entry `name` in `ptx`, in order; None when the
/// entry is not there.
pub fn entry_params(ptx: &str, name: &str) -> Option<Vec<u32>> {
    let head = format!(".entry {name}(");
    let start = ptx.find(&head)? + head.len();
    let len = ptx[start..].find(')')?;
    let list = ptx[start..start + len].trim();
    if list.is_empty() {
        return Some(Vec::new());
    }
    list.split(',').map(param_size).collect()
}

/// ".param .u64 .ptr .align 1 k_param_0" is 8 bytes; ".param .align 8 .b8 k_param_1[24]"
/// (a struct by value) is 24.
fn param_size(decl: &str) -> Option<u32> {
    let words: Vec<&str> = decl.split_whitespace().collect();
    let elem = words.iter().find_map(|w| type_size(w))?;
    let count = match words.last()?.split_once('[') {
        Some((_, n)) => n.trim_end_matches(']').parse().ok()?,
        None => 1,
    };
    Some(elem * count)
}

fn type_size(word: &str) -> Option<u32> {
    let ty = word.strip_prefix('.')?;
    let bits: u32 = ty.get(1..)?.parse().ok()?;
    matches!(ty.chars().next()?, 'u' | 's' | 'b' | 'f').then_some(bits / 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_read_from_the_entry() {
        let ptx = "
.visible .entry copy(
\t.param .u64 .ptr .global .align 1 copy_param_0,
\t.param .u64 copy_param_1,
\t.param .u32 copy_param_2,
\t.param .align 8 .b8 copy_param_3[24]
)
{
\tld.param.u64 %rd1, [copy_param_0];
}
.visible .entry empty()
{
}";
        assert_eq!(entry_params(ptx, "copy"), Some(vec![8, 8, 4, 24]));
        assert_eq!(entry_params(ptx, "empty"), Some(vec![]));
        assert_eq!(entry_params(ptx, "other"), None);
    }
}
