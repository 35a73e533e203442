import FFmpegSupport

extension BlendJob {
    /// Every layer, the FX first: the blend's own fx with its placement, key and compositing, then `layers`.
    public var allLayers: [Layer] {
        var first = Layer(fx: fx)
        (first.placement, first.key, first.autoKeyColor, first.compositing) = (placement, key, autoKeyColor, compositing)
        return [first] + layers
    }

    /// A layer's sound's name, and the name its messages give it: `fx` for a single fx, `fx1`, `fx2` … with layers.
    @_spi(Tools) public func layerLabel(_ i: Int) -> String { layers.isEmpty ? "fx" : "fx\(i + 1)" }

    /// What a message about layer `i` starts with: nothing for a single fx (the options are its own), else
    /// `layer fx2 (b.mov): `.
    func messagePrefix(ofLayer i: Int, _ layer: Layer) -> String {
        layers.isEmpty ? "" : "layer \(layerLabel(i)) (\(layer.fx)): "
    }

    /// `layers`: a job file's array of layer objects; `--layer FILE[:NAME=VALUE]...` on the command line, repeatable.
    static var layersOption: JobOption<Self> {
        .objects("layers", \.layers, blank: Layer(fx: ""), options: Layer.options, label: { "layer fx\($0 + 2)" },
                 help: "Another fx over base, laid over FX and the layers before it; repeatable (--layer). "
                    + "NAME: at, in, out, place (X,Y,W,H), opacity, key-color, threshold, smoothing, despill, keyer, despill-strength, garbage, choke, feather, key.")
    }

    /// Every layer's placement and key checked, a message naming the layer (`layer fx2 (b.mov): --at -1: …`).
    func validateLayers() throws(MixWriteError) {
        for (i, layer) in allLayers.enumerated() {
            let name = messagePrefix(ofLayer: i, layer)
            try layer.placement.validate(name)
            if i > 0 {
                do { try Layer.keyOptions.checkRanges(layer) } catch { throw .usage(name + error.description) }
                do { try layer.checkFineKey() } catch { throw .usage(name + error.description) }
            }
        }
    }
}
