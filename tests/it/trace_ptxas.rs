//! Every PTX fixture, instrumented, must still assemble: ptxas is the judge of what the
//! instrumenter writes. Skips (saying why) where no ptxas is installed, unless
//! GPULAB_REQUIRE_PTXAS=1 makes its absence a failure.

use std::path::Path;
use std::process::Command;

use gpulab::trace::instrument::instrument;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ptx");

fn fixtures() -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(FIXTURES)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    assert!(files.len() >= 9, "fixtures missing from {FIXTURES}");
    files
}

fn assemble(ptxas: &Path, ptx: &str, dir: &Path, name: &str) -> Result<(), String> {
    let src = dir.join(format!("{name}.ptx"));
    std::fs::write(&src, ptx).unwrap();
    let out = Command::new(ptxas)
        .args(["-arch=sm_90", "-o"])
        .arg(dir.join(format!("{name}.cubin")))
        .arg(&src)
        .output()
        .unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[test]
fn instrumented_fixtures_assemble() {
    let Some(ptxas) = gpulab::cuda::discover::find().ptxas.clone() else {
        if std::env::var("GPULAB_REQUIRE_PTXAS").as_deref() == Ok("1") {
            panic!("GPULAB_REQUIRE_PTXAS=1 but no ptxas was found");
        }
        eprintln!(
            "skipped: no ptxas in GPULAB_CUDA, CUDA_HOME, CUDA_PATH, /usr/local/cuda, the Python wheels or PATH"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for path in fixtures() {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let original = std::fs::read_to_string(&path).unwrap();
        // The fixture itself must assemble, or a failure below would prove nothing.
        assemble(&ptxas, &original, dir.path(), &format!("{name}.orig"))
            .unwrap_or_else(|e| panic!("{name}: the fixture itself fails: {e}"));
        let inst = instrument(&original).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!inst.sites.is_empty(), "{name}: no sites");
        if let Err(e) = assemble(&ptxas, &inst.ptx, dir.path(), &name) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
