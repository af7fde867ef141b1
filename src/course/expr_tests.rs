use super::*;

fn env() -> Vec<(String, i64)> {
    vec![("n".into(), 1000), ("tile".into(), 32)]
}

fn ev(s: &str) -> Result<i64, ExprError> {
    eval(s, &env())
}

#[test]
fn precedence_and_parentheses() {
    assert_eq!(ev("2 + 3 * 4").unwrap(), 14);
    assert_eq!(ev("(2 + 3) * 4").unwrap(), 20);
    assert_eq!(ev("n / tile").unwrap(), 31);
    assert_eq!(ev("n % tile").unwrap(), 8);
    assert_eq!(ev("10 - 3 - 2").unwrap(), 5);
    assert_eq!(ev("-n + 1").unwrap(), -999);
    assert_eq!(ev("- -3").unwrap(), 3);
    assert_eq!(ev("2 * -3").unwrap(), -6);
    assert_eq!(ev("1_000_000").unwrap(), 1_000_000);
}

#[test]
fn functions() {
    assert_eq!(ev("min(n, 7)").unwrap(), 7);
    assert_eq!(ev("max(n, 7 * 1000)").unwrap(), 7000);
    assert_eq!(ev("ceil_div(n, tile)").unwrap(), 32);
    assert_eq!(ev("ceil_div(64, 32)").unwrap(), 2);
    assert_eq!(ev("ceil_div(-7, 2)").unwrap(), -3);
    assert_eq!(ev("ceil_div(7, -2)").unwrap(), -3);
    assert_eq!(ev("ceil_div(-7, -2)").unwrap(), 4);
}

#[test]
fn later_names_shadow_earlier() {
    let env = vec![("n".to_string(), 1), ("n".to_string(), 2)];
    assert_eq!(eval("n", &env).unwrap(), 2);
}

#[test]
fn unknown_name_lists_known_ones() {
    let e = ev("2 * m").unwrap_err();
    assert_eq!(e.col, 4);
    assert!(e.message.contains("unknown name `m`"), "{}", e.message);
    assert!(e.message.contains("n, tile"), "{}", e.message);
    assert_eq!(e.unknown.as_deref(), Some("m"));
    let e = eval("m", &[]).unwrap_err();
    assert!(e.message.contains("none are defined"), "{}", e.message);
}

#[test]
fn division_by_zero_points_at_operator() {
    let e = ev("n / (tile - 32)").unwrap_err();
    assert_eq!(e.col, 2);
    assert!(e.message.contains("division by zero"), "{}", e.message);
    let e = ev("n % 0").unwrap_err();
    assert!(e.message.contains("division by zero"));
    let e = ev("ceil_div(n, 0)").unwrap_err();
    assert_eq!(e.col, 0);
    assert!(e.message.contains("division by zero"));
}

#[test]
fn overflow_is_an_error() {
    let e = ev("9223372036854775807 + 1").unwrap_err();
    assert_eq!(e.col, 20);
    assert!(e.message.contains("overflow"), "{}", e.message);
    assert!(ev("4294967296 * 4294967296").is_err());
    assert!(ev("-9223372036854775807 - 1 / -1").is_ok());
    let e = ev("(-9223372036854775807 - 1) / -1").unwrap_err();
    assert!(e.message.contains("overflow"), "{}", e.message);
    let e = ev("99999999999999999999").unwrap_err();
    assert!(e.message.contains("64 bits"), "{}", e.message);
}

#[test]
fn syntax_errors_have_columns() {
    let cases = [
        ("n +", 3, "ends too early"),
        ("n * * 2", 4, "unexpected `*`"),
        ("(n + 1", 6, "expected `)`"),
        ("n 2", 2, "unexpected `2`"),
        ("n / 2.5", 5, "unexpected character `.`"),
        ("foo(1, 2)", 0, "unknown function `foo`"),
        ("min(1 2)", 6, "expected `,`"),
        ("", 0, "ends too early"),
        ("12ab", 0, "not an integer"),
    ];
    for (text, col, phrase) in cases {
        let e = ev(text).unwrap_err();
        assert_eq!(e.col, col, "{text}: {}", e.message);
        assert!(e.message.contains(phrase), "{text}: {}", e.message);
    }
}

#[test]
fn identifiers() {
    assert!(is_identifier("n"));
    assert!(is_identifier("_tile2"));
    assert!(!is_identifier("2n"));
    assert!(!is_identifier("a-b"));
    assert!(!is_identifier(""));
}

#[test]
fn deep_nesting_is_refused_at_its_position_not_a_stack_overflow() {
    let minus = "-".repeat(50_000) + "1";
    let e = ev(&minus).unwrap_err();
    assert_eq!(e.col, MAX_DEPTH);
    assert!(e.message.contains("nested too deeply"), "{}", e.message);
    let parens = "(".repeat(200_000) + "1";
    let e = ev(&parens).unwrap_err();
    assert_eq!(e.col, MAX_DEPTH);
    let calls = "min(".repeat(10_000) + "1";
    assert!(
        ev(&calls)
            .unwrap_err()
            .message
            .contains("nested too deeply")
    );
    // Within the bound, nesting still works.
    let ok = "(".repeat(MAX_DEPTH - 1) + "-3" + &")".repeat(MAX_DEPTH - 1);
    assert_eq!(ev(&ok), Ok(-3));
    assert_eq!(ev(&("-".repeat(MAX_DEPTH) + "2")), Ok(2));
}

#[test]
fn shifts_bind_looser_than_sums_as_in_c() {
    assert_eq!(ev("1 << 24").unwrap(), 16_777_216);
    assert_eq!(ev("1<<4+1").unwrap(), 32, "1 << (4 + 1)");
    assert_eq!(ev("n >> 3").unwrap(), 125);
    assert_eq!(ev("(1 << 10) * 4").unwrap(), 4096);
    assert_eq!(ev("-1 << 63").unwrap(), i64::MIN);
    assert_eq!(ev("-8 >> 1").unwrap(), -4);
    let e = ev("1 << 63").unwrap_err();
    assert!(e.message.contains("overflow"), "{}", e.message);
    assert_eq!(e.col, 2);
    let e = ev("1 << 64").unwrap_err();
    assert!(e.message.contains("0 to 63"), "{}", e.message);
    let e = ev("1 >> -1").unwrap_err();
    assert!(e.message.contains("0 to 63"), "{}", e.message);
    let e = ev("1 < 2").unwrap_err();
    assert!(
        e.message.contains("unexpected character `<`"),
        "{}",
        e.message
    );
    let e = ev("n <<").unwrap_err();
    assert!(e.message.contains("ends too early"), "{}", e.message);
}
