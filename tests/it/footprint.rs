//! The texture footprint view on `TestBackend`, over the shipped texture lesson. Its trace is
//! built here, record by record, as the logger writes one for `tex-columns` (the kernel's
//! four point fetches around (r - 1.7, c + 1.3), two blocks of 8 warps), then decoded and
//! analysed by the tracer's own code; the figures are labelled with a test GPU, never shown
//! as measured on the H100 (the recording has no texture trace yet).

use crossterm::event::{KeyCode, KeyEvent};
use gpulab::course::bundle::CourseRoot;
use gpulab::model::access::{AccessKind, CoordType, Space, TexCoords};
use gpulab::model::results::{DeviceInfo, MemoryStats, Source};
use gpulab::session::fold::blank_result;
use gpulab::session::progress::Progress;
use gpulab::trace::decode::{Record, decode, encode};
use gpulab::trace::instrument::{Event, Site};
use gpulab::ui::{App, Overlay};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const GRID_X: u32 = 16;

fn site(id: u32) -> Site {
    Site {
        id,
        event: Event::Access {
            space: Space::Texture,
            kind: AccessKind::Load,
        },
        op: "tex.2d.v4.f32.f32".into(),
        width: 16,
        ptx_line: 60 + 9 * id,
        source_line: Some(51 + id),
        source_file: Some(1),
        coords: Some(TexCoords {
            ty: CoordType::F32,
            dims: 2,
            normalized: None,
        }),
        unused: false,
        staged: false,
        relayed: false,
        addr: String::new(),
        timed: false,
        called_at: Vec::new(),
        callee: String::new(),
    }
}

/// The four fetches of one warp of block (bx, r), as the logger records them.
fn warp_records(bx: u32, r: u32, warp: u32) -> Vec<Record> {
    let coords = |lane: u32, di: i32, dj: i32| {
        let c = bx * 256 + warp * 32 + lane;
        let (x, y) = (r as f32 + -1.7f32, c as f32 + 1.3f32);
        let (i, j) = (x.floor() as i32 + di, y.floor() as i32 + dj);
        let (u, v) = (i as f32 + 0.5, j as f32 + 0.5);
        u64::from(v.to_bits()) << 32 | u64::from(u.to_bits())
    };
    [(0, 0), (1, 0), (0, 1), (1, 1)]
        .iter()
        .enumerate()
        .map(|(s, &(di, dj))| Record {
            site: s as u32,
            block: bx + GRID_X * r,
            warp,
            mask: u32::MAX,
            space: Space::Texture,
            width: 16,
            rank: 0,
            addrs: std::array::from_fn(|l| coords(l as u32, di, dj)),
        })
        .collect()
}

fn traced() -> MemoryStats {
    let sites: Vec<Site> = (0..4).map(site).collect();
    // Blocks 0 and 32768 of the 16 × 4096 grid: (0, 0) and (0, 2048).
    let records: Vec<Record> = [0, 2048]
        .iter()
        .flat_map(|&r| (0..8).flat_map(move |w| warp_records(0, r, w)))
        .collect();
    let decoded = decode(&encode(&records), &sites).unwrap();
    let mut m = gpulab::trace::analyze::analyze(&decoded, &sites);
    m.traced_blocks = 2;
    m.total_blocks = u64::from(GRID_X) * 4096;
    m
}

fn app() -> App {
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    let idx = lessons.iter().position(|l| l.id == "texture").unwrap();
    let device = DeviceInfo {
        name: "Test GPU (trace built by the test)".into(),
        recorded_at: Some("2026-11-21T12:00:00Z".into()),
        ..Default::default()
    };
    let mut r = blank_result(&lessons[idx], Source::Recorded, Some(device));
    let v = r
        .variants
        .iter()
        .position(|v| v.name == "tex-columns")
        .unwrap();
    r.variants[v].memory = Some(traced());
    let mut a = App::new(lessons, None, Progress::default());
    a.runs.show("texture", r);
    a.reading.select(idx);
    a.view.focus(v);
    a.view.set_color(false);
    a.reading.progress_mut().mark_revealed("texture");
    a
}

fn draw(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    gpulab::ui::buffer_to_text(t.backend().buffer())
}

fn key(a: &mut App, c: char) {
    a.on_key(KeyEvent::from(KeyCode::Char(c)));
}

#[test]
fn the_trace_counts_a_column_walk_as_32_texels_on_32_rows() {
    let m = traced();
    assert_eq!(m.texture.requests, 64);
    assert_eq!((m.texture.texels, m.texture.rows), (64 * 32, 64 * 32));
    let fetch = &m.instructions[0];
    assert_eq!(
        fetch.footprint.len(),
        gpulab::trace::analyze::FOOTPRINT_WARPS
    );
    let v = gpulab::model::results::VariantResult {
        memory: Some(m.clone()),
        ..Default::default()
    };
    let f = gpulab::analysis::footprint::footprint(&v, Some(0)).unwrap();
    // Warp 0 of block 0: x = -1.7 gives texels -2 and -1; y = 1.3 … 32.3 and one below.
    assert_eq!((f.origin, f.width, f.height), ((-2, 1), 2, 33));
    assert_eq!((f.fetches, f.texels, f.rows), (128, 66, 33));
    assert_eq!(f.cells[0], [1, 1]);
    assert!(f.cells[1..32].iter().all(|r| r == &[2, 2]));
}

#[test]
fn f_opens_the_footprint_and_brackets_walk_the_warps() {
    let mut a = app();
    key(&mut a, 'f');
    assert_eq!(a.view.overlay(), Overlay::Footprint);
    let screen = draw(&a, 120, 40);
    assert!(
        screen.contains("[1/8] tex-columns · block 0 warp 0"),
        "{screen}"
    );
    assert!(
        screen.contains("128 fetches · 66 texels on 33 rows"),
        "{screen}"
    );
    assert!(
        screen.contains("trace: 32.0 texels and 32.0 rows per request"),
        "{screen}"
    );
    assert!(
        screen.contains("  y33  1  1"),
        "every row drawn, cells three wide:\n{screen}"
    );
    insta::assert_snapshot!("footprint_tex_columns_warp0", screen);
    key(&mut a, ']');
    assert!(draw(&a, 120, 40).contains("[2/8] tex-columns · block 0 warp 1"));
    key(&mut a, 'a');
    let all = draw(&a, 120, 40);
    assert!(all.contains("all 8 sampled warps"), "{all}");
    assert!(all.contains("window 2 × 64 texels from x -2, y 1"), "{all}");
    // Small screens squeeze the rows: the whole window still fits.
    let small = draw(&a, 80, 24);
    assert!(small.contains("y1") && !small.contains("y2 "), "{small}");
    key(&mut a, 'f');
    assert_eq!(a.view.overlay(), Overlay::None);
}

#[test]
fn the_column_names_texels_per_request() {
    let a = app();
    let screen = draw(&a, 160, 60);
    assert!(screen.contains("texture 32.0 texels/request"), "{screen}");
    assert!(screen.contains("texture 32.0 rows/request"), "{screen}");
    let m = traced();
    let lines = gpulab::analysis::describe::space_lines(&m);
    assert_eq!(
        lines,
        ["texture 32.0 texels/request", "texture 32.0 rows/request"]
    );
    let cluster = MemoryStats {
        cluster: gpulab::model::results::ClusterStats {
            requests: 4,
            sectors: 16,
            remote_requests: 2,
            remote_sectors: 8,
            remote_words: 64,
            remote_blocks: 2,
        },
        ..MemoryStats::default()
    };
    let lines = gpulab::analysis::describe::space_lines(&cluster);
    assert_eq!(
        lines,
        [
            "cluster 4.00 sectors/request",
            "cluster 50% of requests remote"
        ]
    );
}

#[test]
fn a_variant_without_texture_fetches_says_so() {
    let mut a = app();
    a.view.focus(0);
    key(&mut a, 'f');
    let screen = draw(&a, 120, 40);
    assert!(
        screen.contains("no texture fetches traced for this variant"),
        "{screen}"
    );
    // A lesson without textures has no footprint key.
    a.view.close();
    a.reading.select_id("constant").unwrap();
    key(&mut a, 'f');
    assert_eq!(a.view.overlay(), Overlay::None);
}
