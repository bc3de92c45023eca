#!/usr/bin/python3
"""Build the training photo pool in .pool/ (gitignored) from Debian's wallpaper packages.

Reproducible: the same installed packages give the same files, byte for byte.

    apt-get install gnome-backgrounds plasma-workspace-wallpapers mate-backgrounds \
        ukui-wallpapers lomiri-wallpapers-16.04 lomiri-wallpapers-20.04 \
        fonts-dejavu-core fonts-liberation
    /usr/bin/python3 tools/train/make_pool.py            # writes .pool/

What it writes (the whole folder travels to the GPU machine with `carry: [".pool"]`):

  .pool/photos/*.jpg       kept wallpapers, JPEG q92 4:4:4; photographs at 1280 px on the long
                           side, textured graphics at 1024 px
  .pool/manifest.json      every one of the 108 distinct wallpapers: source file, size, kept or
                           dropped and why
  .pool/text_sprites.npz   text, subtitle, logo bitmaps rendered with DejaVu/Liberation fonts:
                           uint8 [N, 2, 48, 384] (channel 0 = glyph alpha, channel 1 = outline,
                           box or logo-body alpha) plus kind[N] (0 outlined text, 1 boxed
                           subtitle, 2 logo, 3 plain text)
  .pool/val/davis/         copy of ../shared/data/val/davis (validation triplets for train.py)

A wallpaper is one folder (plasma: `contents/images*`), or one file name elsewhere, with size
suffixes like `_5640x3172` folded together; the largest size is taken; SVGs and the plasma
`screenshot` previews are not wallpapers. That yields the 89 distinct images of the first four packages; the two Lomiri packages
(Ubuntu Touch's wallpapers, most of them photographs) add 19, for 108.
"""
import argparse
import json
import os
import random
import re
import shutil
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFont

Image.MAX_IMAGE_PIXELS = None

ROOTS = ["/usr/share/backgrounds", "/usr/share/wallpapers"]
EXTS = (".jpg", ".jpeg", ".png", ".webp")

# Judged by eye from a contact sheet of all 108 (see MODELS.md). Photographs: real camera images.
PHOTOS = {
    "Aqua", "Blinds", "Dune", "FreshFlower", "Garden", "GreenMeadow", "LadyBird", "RainDrops",
    "Storm", "TwoWings", "Wood", "YellowFlower", "BytheWater", "ColdRipple", "ColorfulCups",
    "DarkestHour", "EveningGlow", "FallenLeaf", "Grey", "Kite", "OneStandsOut", "Path",
    "summer_1am",
    # lomiri-wallpapers-16.04 / -20.04
    "Bridge_by_Sander_Klootwijk", "Dragonfly_by_Bolly", "Kleiber_by_Lukas_Baubkus",
    "Picture_0B_by_freespace", "Picture_1A_by_freespace", "Wine_by_Jakkub_Mede",
    "aitzgorri_by_Aitzol_Berasategi", "free_by_Peter_Nerlich", "friends_by_Aitzol_Berasategi",
    "greentock_by_Peter_Nerlich", "life_by_Aitzol_Berasategi",
    "picosdeeuropa_by_Aitzol_Berasategi", "seeding_by_Clements_Engelhardt",
    "sunset_by_Aitzol_Berasategi",
}
# Textured or structured graphics: sharp edges, repeated patterns, painted detail.
TEXTURED = {
    "2004default", "calla", "firstgeneration", "adwaita-d", "adwaita-l", "grid-d", "grid-l",
    "licorice-d", "licorice-l", "pixels-d", "pixels-l", "truchet-d", "truchet-l", "wood-d",
    "wood-l", "goldfish", "Elephants", "rhythm", "rollpaper", "string", "the-mouse", "Altai",
    "Autumn", "Canopee", "Cascade", "Cluster", "Elarun", "Flow", "Flow_dark", "FlyingKonqui",
    "Honeywave", "IceCold", "Kay", "MilkyWay", "Opal", "PastelHills", "Patak", "Patak_dark",
    "SafeLanding", "Shell", "Volna", "focal-ubuntukylin", "Float-into-MATE",
    "analogpattern_by_Peter_Nerlich", "Infinite-Sea_by_Aury88",
}
# Everything else is dropped: flat colour fields, near-black gradients, transparent overlays.
DROP_WHY = {
    "city": "flat colour fields", "desert": "flat colour fields", "fluent-color": "smooth blur",
    "symbolic-d": "near-flat", "symbolic-l": "near-flat", "vnc-d": "flat, 256 px",
    "vnc-l": "flat, 256 px", "Arc-Colors-Transparent-Wallpaper": "transparent overlay",
    "Gulp": "transparent overlay", "Silk": "transparent overlay", "Spring": "transparent overlay",
    "Waves": "transparent overlay", "MATE-Stripes-Dark": "near-black",
    "MATE-Stripes-Light": "transparent overlay", "GreenTraditional": "logo on white",
    "Stripes": "smooth stripes", "Ubuntu-Mate-Cold-no-logo": "smooth blur",
    "Ubuntu-Mate-Dark-no-logo": "near-black", "Ubuntu-Mate-Radioactive-no-logo": "smooth blur",
    "Ubuntu-Mate-Warm-no-logo": "smooth blur", "Kokkini": "smooth gradient",
    "Kay_dark": "near-black", "mate/Flow": "transparent overlay",
    "Fossa_by_Jasper_Roks": "smooth gradient", "Painting-Colors_by__herobrine7gamer":
    "flat colour fields", "umang_by_Abhishek_Mudgal": "smooth gradient",
    "warty-final-ubuntu": "smooth gradient",
    "lomiri-default-background": "a link to warty-final-ubuntu",
}


def find_wallpapers():
    """{name: [paths]} with one entry per distinct wallpaper."""
    groups = {}
    for root in ROOTS:
        for d, _, files in sorted(os.walk(root)):
            for f in sorted(files):
                if not f.lower().endswith(EXTS):
                    continue
                p = os.path.join(d, f)
                m = re.search(r"/wallpapers/([^/]+)/contents/(images[^/]*)$", d)
                if m:
                    name = m.group(1) + m.group(2)[len("images"):]  # Flow, Flow_dark
                elif "/wallpapers/" in d:
                    continue  # screenshot.* previews
                else:
                    name = re.sub(r"_\d+x\d+$", "", os.path.splitext(f)[0])
                    if "/mate/" in d and name == "Flow":
                        name = "mate/Flow"  # not the plasma Flow
                groups.setdefault(name, []).append(p)
    return groups


def area(p):
    with Image.open(p) as im:
        return im.size[0] * im.size[1]


def to_rgb(im):
    if im.mode in ("RGBA", "LA", "P"):
        im = im.convert("RGBA")
        bg = Image.new("RGBA", im.size, (0, 0, 0, 255))
        bg.alpha_composite(im)
        im = bg
    return im.convert("RGB")


def make_photos(out, groups, photo_side, texture_side):
    manifest = []
    os.makedirs(os.path.join(out, "photos"), exist_ok=True)
    for name in sorted(groups, key=str.lower):
        best = max(sorted(groups[name]), key=area)
        with Image.open(best) as im0:
            size = im0.size
            kind = "photo" if name in PHOTOS else "textured" if name in TEXTURED else None
            entry = {"name": name, "source": best, "size": list(size), "kept": kind is not None}
            if kind is None:
                entry["why_dropped"] = DROP_WHY.get(name, "not photographic or textured")
            else:
                im = to_rgb(im0)
                side = photo_side if kind == "photo" else texture_side
                s = side / max(im.size)
                if s < 1:
                    im = im.resize((round(im.size[0] * s), round(im.size[1] * s)),
                                   Image.LANCZOS)
                fn = re.sub(r"[^A-Za-z0-9_-]", "_", name) + ".jpg"
                im.save(os.path.join(out, "photos", fn), quality=92, subsampling=0)
                entry.update(kind=kind, file="photos/" + fn, pool_size=list(im.size),
                             bytes=os.path.getsize(os.path.join(out, "photos", fn)))
        manifest.append(entry)
    return manifest


# ---------------------------------------------------------------- text sprites
FONT_DIRS = ["/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/liberation"]
WORDS = ("the and news live breaking sport weather today tonight channel music show episode "
         "season final match goal score replay highlights update world city market traffic "
         "report exclusive interview watch next coming up more after break temperature wind "
         "rain sunny cloudy minute hour second first half time extra stream online radio "
         "station morning evening night special edition documentary chapter part Framecast "
         "you know what I mean we should go there now right? Okay! Thank you very much").split()
NAMES = ["HD", "4K", "LIVE", "TV1", "NEWS", "SPORT", "REC", "FC", "BBC", "ARD", "ZDF", "RAI",
         "M6", "N24", "CNN", "KiKa", "ORF", "SVT", "YLE", "ESPN", "NHK", "TF1", "3sat", "HBO"]


def random_text(rng):
    r = rng.random()
    if r < 0.15:
        return "%02d:%02d:%02d" % (rng.randrange(24), rng.randrange(60), rng.randrange(60))
    if r < 0.25:
        return rng.choice(NAMES) + " " + str(rng.randrange(1, 100))
    n = rng.randint(1, 7)
    s = " ".join(rng.choice(WORDS) for _ in range(n))
    if rng.random() < 0.5:
        s = s[0].upper() + s[1:]
    if rng.random() < 0.15:
        s = s.upper()
    return s


def render_sprite(rng, fonts, kind, H=48, W=384):
    """Returns uint8 [2, H, W]."""
    font_path = rng.choice(fonts)
    text = random_text(rng) if kind != 2 else rng.choice(NAMES)
    stroke = rng.choice([1, 2, 2, 3]) if kind == 0 else 0
    g = Image.new("L", (W, H), 0)
    o = Image.new("L", (W, H), 0)
    if kind == 2:  # logo: a body shape with a short label inside, at the left
        bw = rng.randint(60, 140)
        body = ImageDraw.Draw(o)
        shape = rng.randrange(3)
        box = (2, 2, bw, H - 3)
        if shape == 0:
            body.rounded_rectangle(box, radius=rng.randint(4, 16), fill=255)
        elif shape == 1:
            body.ellipse(box, fill=255)
        else:
            body.polygon([(2, H - 3), (bw // 5, 2), (bw, 2), (bw - bw // 5, H - 3)], fill=255)
        size = rng.randint(16, 30)
        font = ImageFont.truetype(font_path, size)
        while font.getbbox(text)[2] > bw - 12 and size > 8:
            size -= 1
            font = ImageFont.truetype(font_path, size)
        x0, y0, x1, y1 = font.getbbox(text)
        ImageDraw.Draw(g).text((2 + (bw - (x1 - x0)) // 2 - x0, (H - (y1 - y0)) // 2 - y0),
                               text, font=font, fill=255)
    else:
        size = rng.randint(14, 38)
        font = ImageFont.truetype(font_path, size)
        while True:
            x0, y0, x1, y1 = font.getbbox(text, stroke_width=stroke)
            if (x1 - x0 <= W - 16 and y1 - y0 <= H - 8) or size <= 8:
                break
            if x1 - x0 > W - 16 and len(text) > 4 and rng.random() < 0.5:
                text = text[: max(4, len(text) * (W - 16) // (x1 - x0))].rstrip()
            else:
                size -= 1
                font = ImageFont.truetype(font_path, size)
        pos = ((W - (x1 - x0)) // 2 - x0 if rng.random() < 0.6 else 8 - x0,
               (H - (y1 - y0)) // 2 - y0)
        ImageDraw.Draw(g).text(pos, text, font=font, fill=255)
        if kind == 0:
            ImageDraw.Draw(o).text(pos, text, font=font, fill=255, stroke_width=stroke,
                                   stroke_fill=255)
        elif kind == 1:
            pad = rng.randint(3, 10)
            ImageDraw.Draw(o).rectangle((pos[0] + x0 - pad, 1, pos[0] + x1 + pad, H - 2),
                                        fill=255)
        else:
            o = g.copy()
    return np.stack([np.asarray(g), np.asarray(o)])


def make_sprites(out, n, seed):
    fonts = sorted(os.path.join(d, f) for d in FONT_DIRS if os.path.isdir(d)
                   for f in os.listdir(d) if f.endswith(".ttf") and "Math" not in f)
    if not fonts:
        sys.exit("no fonts: apt-get install fonts-dejavu-core fonts-liberation")
    rng = random.Random(seed)
    kinds = np.array([rng.choice([0, 0, 0, 1, 1, 2, 2, 3]) for _ in range(n)], np.uint8)
    sprites = np.stack([render_sprite(rng, fonts, int(k)) for k in kinds])
    np.savez_compressed(os.path.join(out, "text_sprites.npz"), sprites=sprites, kind=kinds)
    return len(fonts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", ".pool"))
    ap.add_argument("--photo-side", type=int, default=1280)
    ap.add_argument("--texture-side", type=int, default=1024)
    ap.add_argument("--sprites", type=int, default=512)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--val", default=os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                                  "shared", "data", "val", "davis"))
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    groups = find_wallpapers()
    if not groups:  # before the old pool is removed
        sys.exit("make_pool: no wallpapers under " + " or ".join(ROOTS) + "; install the packages "
                 "the docstring names (gnome-backgrounds plasma-workspace-wallpapers ...)")
    if os.path.isdir(os.path.join(out, "photos")):
        shutil.rmtree(os.path.join(out, "photos"))
    os.makedirs(out, exist_ok=True)
    manifest = make_photos(out, groups, a.photo_side, a.texture_side)
    n_all = len(manifest)
    kept = [m for m in manifest if m["kept"]]
    if n_all != 108:
        print(f"warning: found {n_all} distinct wallpapers, expected 108", file=sys.stderr)
    nf = make_sprites(out, a.sprites, a.seed)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"distinct_wallpapers": n_all, "kept": len(kept),
                   "photos": sum(m["kind"] == "photo" for m in kept),
                   "textured": sum(m["kind"] == "textured" for m in kept),
                   "images": manifest}, f, indent=1)
    val = os.path.abspath(a.val)
    if os.path.isdir(val):
        dst = os.path.join(out, "val", "davis")
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(val, dst)
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs)
    print(f"{n_all} distinct wallpapers, kept {len(kept)} "
          f"({sum(m['kind'] == 'photo' for m in kept)} photos); {a.sprites} text sprites "
          f"from {nf} fonts; .pool = {total / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
