//! Reading the pictures the command draws: SVG as XML, PNG and GIF decoded.

use std::io::Cursor;

/// Parses an SVG, failing the test when it is not XML or not an `<svg>` document.
pub fn svg_document(bytes: &[u8]) -> roxmltree::Document<'_> {
    let text = std::str::from_utf8(bytes).expect("SVG is UTF-8");
    let document = roxmltree::Document::parse(text).expect("SVG parses as XML");
    assert_eq!(document.root_element().tag_name().name(), "svg");
    document
}

/// All the text shown in an SVG.
pub fn svg_texts(document: &roxmltree::Document) -> Vec<String> {
    document
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            n.descendants()
                .filter(|d| d.is_text())
                .filter_map(|d| d.text())
                .collect::<String>()
                .trim()
                .to_string()
        })
        .collect()
}

/// Width, height and the share of pixels that are not white.
pub fn decode_png(bytes: &[u8]) -> (u32, u32, f64) {
    let decoder = png::Decoder::new(Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("PNG header");
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).expect("PNG image data");
    let pixels = &buffer[..info.buffer_size()];
    let inked = pixels
        .chunks_exact(3)
        .filter(|p| p != &[255, 255, 255])
        .count();
    (
        info.width,
        info.height,
        inked as f64 / (info.width * info.height) as f64,
    )
}

/// Width, height, frame count and total delay (centiseconds).
pub fn decode_gif(bytes: &[u8]) -> (u16, u16, usize, u32) {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let mut decoder = options.read_info(Cursor::new(bytes)).expect("GIF header");
    let (width, height) = (decoder.width(), decoder.height());
    let (mut frames, mut delay) = (0, 0);
    while let Some(frame) = decoder.read_next_frame().expect("GIF frame") {
        assert!(frame.left + frame.width <= width && frame.top + frame.height <= height);
        frames += 1;
        delay += frame.delay as u32;
    }
    (width, height, frames, delay)
}
