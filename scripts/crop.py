"""Cut a tall screenshot into viewable pieces: crop.py shot.png [piece_height] -> shot.N.png"""

import sys

from PIL import Image

path = sys.argv[1]
step = int(sys.argv[2]) if len(sys.argv) > 2 else 1400
image = Image.open(path)
for n, top in enumerate(range(0, image.height, step)):
    piece = image.crop((0, top, image.width, min(top + step, image.height)))
    out = path.replace(".png", f".{n}.png")
    piece.save(out)
    print(out)
