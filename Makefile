# mixwrite: the two commands of the README, and their parts.
SWIFT ?= swift
OUT ?= out

PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: deps build release demo test fixtures schema docs install uninstall deb clean

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

# Builds everything and runs every test; tests use ffprobe/ffmpeg to check mixwrite's outputs. The run fails when no
# test ran or a test was skipped for a reason .ci/allowed-skips does not list (scripts/run-tests.sh).
test:
	@scripts/install-deps.sh test
	$(SWIFT) build --build-tests
	MIXWRITE_BIN=$$($(SWIFT) build --show-bin-path)/mixwrite scripts/run-tests.sh --skip-build

# Writes Schemas/jobs.schema.json from the jobs' declarations (a test fails when the committed file differs).
schema: deps
	$(SWIFT) build --build-tests
	MIXWRITE_RECORD=1 $(SWIFT) test --skip-build --filter DescriptionTests.schemaIsGenerated

# Writes Docs/options.md, the option reference, from the commands' declarations (a test fails when it differs).
docs: build
	$$($(SWIFT) build --show-bin-path)/mixwrite ---options-reference > Docs/options.md

# Installs the release binary and its shell completions under $(DESTDIR)$(PREFIX) (default /usr/local).
# BIN=path installs that binary instead of building one (the Slurm test installs the build it tests).
install: $(if $(BIN),,release)
	install -D -m 755 "$(or $(BIN),$$($(SWIFT) build -c release --show-bin-path)/mixwrite)" "$(DESTDIR)$(PREFIX)/bin/mixwrite"
	@bin="$(DESTDIR)$(PREFIX)/bin/mixwrite"; \
	install -d "$(DESTDIR)$(PREFIX)/share/bash-completion/completions" "$(DESTDIR)$(PREFIX)/share/zsh/site-functions" \
	    "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d"; \
	"$$bin" --generate-completion-script bash > "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/mixwrite"; \
	"$$bin" --generate-completion-script zsh > "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_mixwrite"; \
	"$$bin" --generate-completion-script fish > "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/mixwrite.fish"
	@echo "installed $(DESTDIR)$(PREFIX)/bin/mixwrite and its completions"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/mixwrite" "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/mixwrite" \
	    "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_mixwrite" "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/mixwrite.fish"

# A Debian package in dist/: the Swift runtime linked in, Debian's FFmpeg 5.1 libraries as its only dependencies.
deb:
	scripts/make-deb.sh

clean:
	rm -rf .build .build-static dist $(OUT)
