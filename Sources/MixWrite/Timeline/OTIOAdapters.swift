import Foundation

/// Timelines of other formats (an EDL, Final Cut Pro's XML, AAF, a Kdenlive or MLT project) read
/// through OpenTimelineIO's own adapters, in its Python library: the file is converted to OTIO's JSON by
/// `otio.adapters.read_from_file` and then read as any `.otio`. Each format's adapter is a package of its own on PyPI;
/// a missing one is named.
enum OTIOAdapters {
    /// The PyPI package that reads each extension.
    static let packages: [String: String] = [
        "edl": "otio-cmx3600-adapter", "xml": "otio-fcp-adapter", "fcpxml": "otio-fcpx-xml-adapter", "aaf": "otio-aaf-adapter",
        "kdenlive": "otio-kdenlive-adapter", "mlt": "otio-mlt-adapter",
    ]

    /// Whether `path` is read through an adapter (not OTIO's JSON itself).
    static func converts(_ path: String) -> Bool {
        let ext = (path as NSString).pathExtension.lowercased()
        return !["otio", "json", "otioz", "otiod", ""].contains(ext)
    }

    /// An EDL event played backwards at its own length (an `M2` line with a negative speed over a source as long as its
    /// record, as Resolve writes a reversed clip) is left forwards by the cmx_3600 adapter, which reads an M2 only where
    /// the two lengths differ: this gives such an event's clip (found by where its record starts) the LinearTimeWarp
    /// its M2 says. Python, run after the adapter.
    static let reversedEvents = """
    import re
    def reversed_events(t, path, rate):
        tc = r"(\\d\\d):(\\d\\d):(\\d\\d)[:;.](\\d\\d)"
        event = re.compile(r"^\\d+\\s+\\S+\\s+(\\S+)\\s+\\S+\\s+(?:\\d+\\s+)?" + " ".join([tc] * 4).replace(" ", r"\\s+") + r"\\s*$")
        m2 = re.compile(r"^M2\\s+.*?\\s(-[0-9.]+)\\s+" + tc + r"\\s*$")
        frames = lambda g: ((int(g[0]) * 60 + int(g[1])) * 60 + int(g[2])) * rate + int(g[3])
        found, kind, first = [], None, None
        for line in open(path, errors="replace"):
            e, m = event.match(line.strip()), m2.match(line.strip())
            if e:
                kind, record = e.group(1), frames(e.groups()[9:13])
                first = record if first is None else min(first, record)
                same = frames(e.groups()[5:9]) - frames(e.groups()[1:5]) == frames(e.groups()[13:17]) - record
            elif m and kind and kind.startswith("V") and same:
                found.append((record, float(m.group(1)) / rate))
        if not found: return
        origin = t.global_start_time.to_frames(rate) if t.global_start_time else first
        for track in t.video_tracks():
            for item in track:
                if not isinstance(item, otio.schema.Clip) or item.effects: continue
                at = track.range_of_child(item).start_time.to_frames(rate)
                for record, scalar in found:
                    if record - origin == at: item.effects.append(otio.schema.LinearTimeWarp(time_scalar=scalar))
    """

    /// `path` as OTIO's JSON, by OTIO's Python library (`rate`: an EDL's frame rate, which the file does not say). A
    /// missing library or adapter, or a file it cannot read, is a usage error naming the package or saying the
    /// adapter's words.
    static func json(of path: String, rate: Double?) throws(MixWriteError) -> Data {
        let ext = (path as NSString).pathExtension.lowercased()
        guard let package = packages[ext] else {
            throw .usage("\(path): '.\(ext)' is not a timeline mixwrite reads (.otio, or through OTIO's adapters: "
                         + packages.keys.sorted().map { "." + $0 }.joined(separator: ", ") + ")")
        }
        guard FileManager.default.fileExists(atPath: path) else { throw .input(file: path, "no such file") }
        let script = """
        import sys, contextlib, io
        try:
            import opentimelineio as otio
        except ImportError:
            sys.stderr.write("nolib"); sys.exit(3)
        args = {}
        if sys.argv[2]: args["rate"] = float(sys.argv[2])
        \(Self.reversedEvents)
        try:
            # What an adapter prints (the Kdenlive adapter's notice that it is deprecated) is not the timeline.
            with contextlib.redirect_stdout(io.StringIO()):
                t = otio.adapters.read_from_file(sys.argv[1], **args)
        except Exception as e:
            name = type(e).__name__
            sys.stderr.write(("noadapter " if "Adapter" in name or "NoKnownAdapter" in name else "") + name + ": " + " ".join(str(e).split()))
            sys.exit(4)
        if sys.argv[1].lower().endswith(".edl"):
            reversed_events(t, sys.argv[1], args.get("rate", 24.0))   # the adapter's own rate when none is given
        sys.stdout.write(otio.adapters.write_to_string(t, "otio_json"))
        """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script, path, rate.map { String($0) } ?? ""]
        let out = Pipe(), err = Pipe()
        (p.standardOutput, p.standardError, p.standardInput) = (out, err, FileHandle.nullDevice)
        do { try p.run() } catch {
            throw .usage("\(path): reading a .\(ext) needs python3 with OpenTimelineIO (pip install opentimelineio \(package))")
        }
        nonisolated(unsafe) var said = Data()
        let reader = Thread { said = err.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        while !reader.isFinished { usleep(1000) }
        let words = OTIOTimeline.oneLine(String(decoding: said, as: UTF8.self), limit: 300)
        switch p.terminationStatus {
        case 0: return data
        case 3, 127: throw .usage("\(path): reading a .\(ext) needs OpenTimelineIO's Python library: pip install opentimelineio \(package)")
        case 4 where words.hasPrefix("noadapter"):
            throw .usage("\(path): no OpenTimelineIO adapter reads .\(ext) here: pip install \(package)")
        default: throw .usage("\(path): OpenTimelineIO's \(package) cannot read it: \(words)")
        }
    }
}
