# mixwrite: the two commands of the README, and their parts.
SWIFT ?= swift
OUT ?= out

.PHONY: deps build release demo test fixtures clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

fixtures: deps
	Fixtures/make-fixtures.sh

# Builds mixwrite and blends the bundled fixtures: fx.mov (green screen, two audio tracks) over base.mov.
demo: release
	@mkdir -p $(OUT)
	$$($(SWIFT) build -c release --show-bin-path)/mixwrite Fixtures/fx.mov Fixtures/base.mov -o $(OUT)/demo.mov -y --progress none
	@echo "demo movie: $(abspath $(OUT)/demo.mov)"

# Builds everything and runs every test; tests use ffprobe/ffmpeg to check mixwrite's outputs.
test: deps
	$(SWIFT) build --build-tests
	MIXWRITE_BIN=$$($(SWIFT) build --show-bin-path)/mixwrite $(SWIFT) test --skip-build

clean:
	rm -rf .build $(OUT)
