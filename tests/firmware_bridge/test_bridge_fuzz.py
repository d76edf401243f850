import random

from firmware_bridge.framing import FrameDecoder, encode_frame

FUZZ_BYTES = 1_000_000


def valid_stream(rng, count):
    frames = []
    for _ in range(count):
        payload = bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 60)))
        frames.append((rng.randrange(256), rng.randrange(256), payload))
    return frames


def test_random_bytes_never_raise_and_every_accepted_frame_checks_out():
    rng = random.Random(20261121)
    decoder = FrameDecoder()
    stream = bytearray()
    accepted = []
    while len(stream) < FUZZ_BYTES:
        size = rng.choice((1, 7, 64, 300, 4096))
        # Sync and escape bytes are made common so that the decoder's edges get exercised.
        chunk = bytes(rng.choice((0x7E, 0x7D, rng.getrandbits(8))) for _ in range(size))
        accepted += decoder.feed(chunk)
        stream += chunk
    assert decoder.stats.bytes_received == len(stream)
    assert decoder.stats.resyncs > 1000
    for frame in accepted:
        # The exact bytes of a correct frame (CRC included) must be in what was fed.
        body = bytes((5 + len(frame.payload), frame.seq, frame.type)) + frame.payload
        assert len(body) + 2 <= 255
        assert encode_frame(frame.seq, frame.type, frame.payload) in stream


def test_mutated_streams_yield_only_frames_that_were_sent():
    rng = random.Random(7)
    decoder = FrameDecoder()
    fed = 0
    sent = 0
    accepted = 0
    while fed < FUZZ_BYTES:
        frames = valid_stream(rng, 50)
        originals = {(s, t, p) for s, t, p in frames}
        wire = bytearray(b"".join(encode_frame(*f) for f in frames))
        # Flipped bits, lost bytes, extra bytes, forged sync bytes.
        for _ in range(rng.randrange(0, 40)):
            index = rng.randrange(len(wire))
            action = rng.randrange(4)
            if action == 0:
                wire[index] ^= 1 << rng.randrange(8)
            elif action == 1:
                del wire[index]
            elif action == 2:
                wire.insert(index, rng.choice((0x7E, 0x7D, rng.getrandbits(8))))
            else:
                wire[index] = 0x7E
        got = []
        for start in range(0, len(wire), 97):
            got += decoder.feed(bytes(wire[start : start + 97]))
        for frame in got:
            assert (frame.seq, frame.type, frame.payload) in originals
        sent += len(frames)
        accepted += len(got)
        fed += len(wire)
    stats = decoder.stats
    assert stats.crc_errors > 0 and stats.resyncs > stats.crc_errors
    # Most frames survive: damage costs one or two frames, never the rest of the stream.
    assert accepted > 0.5 * sent
